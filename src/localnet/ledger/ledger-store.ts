import { join } from 'node:path';
import { LEDGER_SCHEMA } from './ledger-schema';
import { makeDirectory } from '../../config/directories';
import { openPrivateDatabase } from '../../config/private-files';
import type { SqliteDatabase } from '../../config/sqlite';

/** One account as the ledger keeps it. `rentEpoch` is Solana's u64 (u64::MAX = rent exempt). */
export interface StoredAccount {
  lamports: number;
  owner: Buffer;
  executable: boolean;
  rentEpoch: bigint;
  data: Buffer;
}

export interface AccountWrite {
  pubkey: Buffer;
  /** null: the account is gone (zero lamports: Solana purges it at the end of the transaction). */
  account: StoredAccount | null;
}

/** A processed transaction: its status and what getTransaction needs to answer. */
export interface TransactionRecord {
  signature: Buffer;
  slot: number;
  blockTime: number;
  /** JSON of the Solana `TransactionError`, or null on success. */
  err: string | null;
  logs: string[];
  fee: number;
  raw: Buffer;
  preBalances: number[];
  postBalances: number[];
  unitsConsumed: number;
}

export interface BlockRecord {
  height: number;
  slot: number;
  blockhash: string;
  unixTime: number;
}

/** A getProgramAccounts filter, already decoded: bytes at an offset, or the exact data size. */
export type AccountFilter = { memcmp: { offset: number; bytes: Buffer } } | { dataSize: number };

interface AccountRow {
  pubkey?: Buffer;
  lamports: number;
  owner: Buffer;
  executable: number;
  rent_epoch: bigint;
  data: Buffer;
}

interface TransactionRow {
  slot: number;
  block_time: number;
  err: string | null;
  logs: string;
  fee: number;
  raw: Buffer;
  pre_balances: string;
  post_balances: string;
  units: number;
}

/**
 * The local network's ledger in SQLite (WAL). Every statement is prepared once; a transaction's
 * account writes and its status go into one SQLite transaction, so a crash at any moment leaves
 * either all of it or none of it. `synchronous=NORMAL`: a commit is in the WAL file (handed to the
 * OS) when it returns, so kill -9 loses nothing committed; only an OS crash or power loss can
 * lose the last commits. Checkpoints are left to the block timer (`checkpoint`).
 */
export class LedgerStore {
  private readonly db: SqliteDatabase;
  private readonly stmts;
  /** One transaction wrapper, built once: `db.transaction()` per call would recompile it. */
  private readonly inTransaction: (fn: () => unknown) => unknown;

  constructor(dataDir: string) {
    makeDirectory(dataDir);
    this.db = openPrivateDatabase(join(dataDir, 'ledger.sqlite'));
    this.db.pragma('journal_mode = WAL');
    this.db.pragma('synchronous = NORMAL');
    // Checkpoints run from the block timer (`checkpoint`), not inside a transaction's commit.
    this.db.pragma('wal_autocheckpoint = 0');
    this.db.pragma('foreign_keys = OFF');
    this.db.exec(LEDGER_SCHEMA);
    const db = this.db;
    this.inTransaction = db.transaction((fn: () => unknown) => fn());
    this.stmts = {
      getAccount: db
        .prepare<[Buffer], AccountRow>(
          'SELECT lamports, owner, executable, rent_epoch, data FROM accounts WHERE pubkey = ?',
        )
        .safeIntegers(true),
      putAccount: db.prepare(
        `INSERT INTO accounts (pubkey, lamports, owner, executable, rent_epoch, data)
         VALUES (@pubkey, @lamports, @owner, @executable, @rentEpoch, @data)
         ON CONFLICT(pubkey) DO UPDATE SET lamports = excluded.lamports, owner = excluded.owner,
           executable = excluded.executable, rent_epoch = excluded.rent_epoch, data = excluded.data`,
      ),
      deleteAccount: db.prepare('DELETE FROM accounts WHERE pubkey = ?'),
      insertTransaction: db.prepare(
        `INSERT INTO transactions (signature, slot, block_time, err, logs, fee, raw, pre_balances,
           post_balances, units)
         VALUES (@signature, @slot, @blockTime, @err, @logs, @fee, @raw, @preBalances,
           @postBalances, @units)`,
      ),
      hasTransaction: db.prepare<[Buffer], { one: number }>(
        'SELECT 1 AS one FROM transactions WHERE signature = ?',
      ),
      getTransaction: db.prepare<[Buffer], TransactionRow>(
        `SELECT slot, block_time, err, logs, fee, raw, pre_balances, post_balances, units
         FROM transactions WHERE signature = ?`,
      ),
      getStatus: db.prepare<[Buffer], { slot: number; err: string | null }>(
        'SELECT slot, err FROM transactions WHERE signature = ?',
      ),
      countTransactions: db.prepare<[], { n: number }>('SELECT count(*) AS n FROM transactions'),
      getMeta: db.prepare<[string], { value: string }>('SELECT value FROM meta WHERE key = ?'),
      putMeta: db.prepare(
        'INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value',
      ),
      insertBlock: db.prepare(
        'INSERT OR REPLACE INTO blocks (height, slot, blockhash, unix_time) VALUES (@height, @slot, @blockhash, @unixTime)',
      ),
      pruneBlocks: db.prepare('DELETE FROM blocks WHERE height < ?'),
      recentBlocks: db.prepare<
        [],
        { height: number; slot: number; blockhash: string; unix_time: number }
      >('SELECT height, slot, blockhash, unix_time FROM blocks ORDER BY height'),
    };
  }

  getAccount(pubkey: Buffer): StoredAccount | null {
    const row = this.stmts.getAccount.get(pubkey);
    return row ? toAccount(row) : null;
  }

  writeAccounts(writes: AccountWrite[]): void {
    for (const w of writes) {
      if (w.account === null) {
        this.stmts.deleteAccount.run(w.pubkey);
        continue;
      }
      this.stmts.putAccount.run({
        pubkey: w.pubkey,
        lamports: w.account.lamports,
        owner: w.account.owner,
        executable: w.account.executable ? 1 : 0,
        rentEpoch: BigInt.asIntN(64, w.account.rentEpoch),
        data: w.account.data,
      });
    }
  }

  /** Every account, in key order, one at a time (the executor loads them at start). */
  *allAccounts(): Generator<{ pubkey: Buffer; account: StoredAccount }> {
    const rows = this.db
      .prepare<[], AccountRow & { pubkey: Buffer }>(
        'SELECT pubkey, lamports, owner, executable, rent_epoch, data FROM accounts ORDER BY pubkey',
      )
      .safeIntegers(true)
      .iterate();
    for (const row of rows) yield { pubkey: row.pubkey, account: toAccount(row) };
  }

  /** Accounts of `owner` that pass every filter (in SQL: memcmp as a blob substring compare). */
  /**
   * Accounts of an owner matching every filter, in pubkey order, read one row at a time: a
   * caller that stops early (a limit reached) never loads the rest.
   */
  *accountsOwnedBy(
    owner: Buffer,
    filters: AccountFilter[],
  ): Generator<{ pubkey: Buffer; account: StoredAccount }> {
    const where = ['owner = ?'];
    const args: Array<Buffer | number> = [owner];
    for (const f of filters) {
      if ('dataSize' in f) {
        where.push('length(data) = ?');
        args.push(f.dataSize);
      } else {
        where.push('substr(data, ?, ?) = ?');
        args.push(f.memcmp.offset + 1, f.memcmp.bytes.length, f.memcmp.bytes);
      }
    }
    const rows = this.db
      .prepare<unknown[], AccountRow & { pubkey: Buffer }>(
        `SELECT pubkey, lamports, owner, executable, rent_epoch, data FROM accounts
         WHERE ${where.join(' AND ')} ORDER BY pubkey`,
      )
      .safeIntegers(true)
      .iterate(...args);
    for (const row of rows) yield { pubkey: row.pubkey, account: toAccount(row) };
  }

  insertTransaction(t: TransactionRecord): void {
    this.stmts.insertTransaction.run({
      signature: t.signature,
      slot: t.slot,
      blockTime: t.blockTime,
      err: t.err,
      logs: JSON.stringify(t.logs),
      fee: t.fee,
      raw: t.raw,
      preBalances: JSON.stringify(t.preBalances),
      postBalances: JSON.stringify(t.postBalances),
      units: t.unitsConsumed,
    });
  }

  hasTransaction(signature: Buffer): boolean {
    return this.stmts.hasTransaction.get(signature) !== undefined;
  }

  getStatus(signature: Buffer): { slot: number; err: string | null } | null {
    return this.stmts.getStatus.get(signature) ?? null;
  }

  getTransaction(signature: Buffer): TransactionRecord | null {
    const row = this.stmts.getTransaction.get(signature);
    if (!row) return null;
    return {
      signature,
      slot: row.slot,
      blockTime: row.block_time,
      err: row.err,
      logs: JSON.parse(row.logs) as string[],
      fee: row.fee,
      raw: row.raw,
      preBalances: JSON.parse(row.pre_balances) as number[],
      postBalances: JSON.parse(row.post_balances) as number[],
      unitsConsumed: row.units,
    };
  }

  countTransactions(): number {
    return this.stmts.countTransactions.get()?.n ?? 0;
  }

  getMeta(key: string): string | null {
    return this.stmts.getMeta.get(key)?.value ?? null;
  }

  putMeta(key: string, value: string): void {
    this.stmts.putMeta.run(key, value);
  }

  /** Records a block and forgets blocks below `keepFromHeight`, in one SQLite transaction. */
  insertBlock(b: BlockRecord, keepFromHeight: number): void {
    this.atomically(() => {
      this.stmts.insertBlock.run(b);
      this.stmts.pruneBlocks.run(keepFromHeight);
    });
  }

  recentBlocks(): BlockRecord[] {
    return this.stmts.recentBlocks.all().map((r) => ({
      height: r.height,
      slot: r.slot,
      blockhash: r.blockhash,
      unixTime: r.unix_time,
    }));
  }

  /** Runs `fn` in one SQLite transaction (nested calls become savepoints). */
  atomically<T>(fn: () => T): T {
    return this.inTransaction(fn) as T;
  }

  /**
   * Copies committed WAL pages into the database file. Without it the WAL would only grow;
   * run between transactions (the block timer), it keeps the commit path short.
   */
  checkpoint(): void {
    this.db.pragma('wal_checkpoint(PASSIVE)');
  }

  close(): void {
    if (!this.db.open) return;
    this.db.pragma('wal_checkpoint(TRUNCATE)');
    this.db.close();
  }
}

function toAccount(row: AccountRow): StoredAccount {
  return {
    lamports: Number(row.lamports),
    owner: row.owner,
    executable: Number(row.executable) === 1,
    rentEpoch: BigInt.asUintN(64, BigInt(row.rent_epoch)),
    data: row.data,
  };
}
