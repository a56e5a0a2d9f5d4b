import { PublicKey } from '@solana/web3.js';
import { FailedTransactionMetadata, LiteSVM } from 'litesvm';
import { Account, LiteSvm, TransactionMetadata } from 'litesvm/dist/internal';
import {
  Clock,
  droppedResult,
  ExecutionResult,
  ProcessingEnvironment,
  SimulatedAccount,
  TransactionExecutor,
} from '../bank/execution';
import { AccountWrite, LedgerStore, StoredAccount } from '../ledger/ledger-store';
import { RENT_EXEMPT_EPOCH } from '../transactions/rent';
import { SanitizedTransaction } from '../transactions/sanitized-transaction';
import { transactionFee } from '../transactions/transaction-fee';
import { transactionErrorJson } from './svm-transaction-error';

export const UPGRADEABLE_LOADER_ID = new PublicKey('BPFLoaderUpgradeab1e11111111111111111111111');
/** Solana truncates a transaction's logs past 10,000 bytes. */
const LOG_BYTES_LIMIT = 10_000n;
/** UpgradeableLoaderState: Program { programdata_address } is tag 2; ProgramData's header is 45 bytes. */
const LOADER_PROGRAM_TAG = 2;
const PROGRAMDATA_HEADER = 45;

/**
 * Transactions executed by the real SVM (litesvm: agave's runtime with the real System, SPL
 * Token, Associated Token, Compute Budget and BPF loader programs). The ledger (SQLite) is the
 * truth: at start every account it holds is loaded into the SVM, and every account a committed
 * transaction changed goes back to the ledger with its status in one SQLite transaction
 * (bank.ts). The network keeps its own blockhash and replay rules, signature checks and clock;
 * the SVM's are off or driven from the bank.
 */
export class SvmExecutor implements TransactionExecutor {
  private readonly svm: LiteSvm;
  private slot = -1;
  private unixTimestamp = Number.NaN;
  private readonly before = new WeakMap<ExecutionResult, AccountWrite[]>();

  constructor(private readonly ledger: LedgerStore) {
    const outer = new LiteSVM()
      .withSigverify(false)
      .withBlockhashCheck(false)
      .withTransactionHistory(0n)
      .withLogBytesLimit(LOG_BYTES_LIMIT);
    this.svm = (outer as unknown as { inner: LiteSvm }).inner;
    this.loadLedger();
  }

  /** Deploys an ELF as an upgradeable program (no upgrade authority); returns the accounts it wrote. */
  deployAtGenesis(programId: PublicKey, elf: Buffer): AccountWrite[] {
    this.svm.addProgram(programId.toBytes(), elf);
    const programData = programDataAddress(programId);
    return [programId, programData].map((key) => ({
      pubkey: key.toBuffer(),
      account: this.read(key.toBuffer()),
    }));
  }

  /** The SVM's own view of accounts the ledger does not hold yet (builtin programs at genesis). */
  accounts(keys: PublicKey[]): AccountWrite[] {
    return keys.map((key) => ({ pubkey: key.toBuffer(), account: this.read(key.toBuffer()) }));
  }

  /** Puts an account into the SVM as the ledger stores it (genesis, restores). */
  write(pubkey: Buffer, account: StoredAccount | null): void {
    this.svm.setAccount(pubkey, toSvmAccount(account));
  }

  process(tx: SanitizedTransaction, env: ProcessingEnvironment): ExecutionResult {
    const refused = this.refusal(tx, env);
    if (refused) return refused;
    const before = tx.keyBytes.map((key) => this.read(key));
    const outcome = this.send(tx);
    // Read-only accounts cannot change: only the writable ones are read back.
    const after = tx.keyBytes.map((key, i) =>
      tx.isWritableByHeader(i) ? this.read(key) : before[i],
    );
    const failed = outcome instanceof FailedTransactionMetadata;
    const err = failed ? transactionErrorJson(outcome.err()) : null;
    const payerBefore = before[0]?.lamports ?? 0;
    const payerAfter = after[0]?.lamports ?? 0;
    // A transaction that fails the fee payer checks changes nothing: Solana drops it.
    if (failed && payerBefore === payerAfter && err !== null) return droppedResult(err);
    const meta: TransactionMetadata = failed ? outcome.meta() : outcome;
    const writes: AccountWrite[] = [];
    const undo: AccountWrite[] = [];
    tx.keyBytes.forEach((pubkey, i) => {
      if (sameAccount(before[i], after[i])) return;
      writes.push({ pubkey, account: after[i] });
      undo.push({ pubkey, account: before[i] });
    });
    const result: ExecutionResult = {
      chargeable: true,
      err,
      logs: meta.logs(),
      fee: failed ? payerBefore - payerAfter : transactionFee(tx),
      unitsConsumed: Number(meta.computeUnitsConsumed()),
      writes,
      preBalances: before.map((a) => a?.lamports ?? 0),
      postBalances: after.map((a) => a?.lamports ?? 0),
      accounts: [],
    };
    this.before.set(result, undo);
    return result;
  }

  simulate(tx: SanitizedTransaction, env: ProcessingEnvironment): ExecutionResult {
    const refused = this.refusal(tx, env);
    if (refused) return refused;
    const before = tx.keyBytes.map((key) => this.read(key));
    const outcome =
      tx.version === 'legacy'
        ? this.svm.simulateLegacyTransaction(tx.raw)
        : this.svm.simulateVersionedTransaction(tx.raw);
    const preBalances = before.map((a) => a?.lamports ?? 0);
    if (outcome instanceof FailedTransactionMetadata) {
      const meta = outcome.meta();
      return {
        chargeable: true,
        err: transactionErrorJson(outcome.err()),
        logs: meta.logs(),
        fee: transactionFee(tx),
        unitsConsumed: Number(meta.computeUnitsConsumed()),
        writes: [],
        preBalances,
        postBalances: preBalances,
        accounts: [],
      };
    }
    const posted = new Map<string, StoredAccount | null>();
    for (const entry of outcome.postAccounts()) {
      posted.set(Buffer.from(entry.address).toString('latin1'), fromSvmAccount(entry.account()));
    }
    const accounts: SimulatedAccount[] = tx.keyBytes.map((pubkey, i) => {
      const key = pubkey.toString('latin1');
      return { pubkey, account: posted.has(key) ? posted.get(key)! : before[i] };
    });
    const meta = outcome.meta();
    return {
      chargeable: true,
      err: null,
      logs: meta.logs(),
      fee: transactionFee(tx),
      unitsConsumed: Number(meta.computeUnitsConsumed()),
      writes: [],
      preBalances,
      postBalances: accounts.map((a) => a.account?.lamports ?? 0),
      accounts,
    };
  }

  rollback(result: ExecutionResult): void {
    for (const w of this.before.get(result) ?? []) this.write(w.pubkey, w.account);
  }

  /** Loads the ledger back into a fresh SVM after a failed commit. */
  reloadFromLedger(): void {
    this.loadLedger();
  }

  private send(tx: SanitizedTransaction) {
    return tx.version === 'legacy'
      ? this.svm.sendLegacyTransaction(tx.raw)
      : this.svm.sendVersionedTransaction(tx.raw);
  }

  private refusal(tx: SanitizedTransaction, env: ProcessingEnvironment): ExecutionResult | null {
    if (!env.isBlockhashValid(tx.recentBlockhash)) return droppedResult('BlockhashNotFound');
    if (env.isProcessed(tx.signatures[0])) return droppedResult('AlreadyProcessed');
    this.syncClock(env.clock);
    return null;
  }

  /** The SVM's Clock sysvar follows the bank's slot and wall time. */
  private syncClock(clock: Clock): void {
    if (clock.slot === this.slot && clock.unixTimestamp === this.unixTimestamp) return;
    if (clock.slot > this.slot) this.svm.warpToSlot(BigInt(clock.slot));
    const sysvar = this.svm.getClock();
    sysvar.unixTimestamp = BigInt(clock.unixTimestamp);
    this.svm.setClock(sysvar);
    this.slot = clock.slot;
    this.unixTimestamp = clock.unixTimestamp;
  }

  private read(pubkey: Buffer): StoredAccount | null {
    return fromSvmAccount(this.svm.getAccount(pubkey));
  }

  /**
   * Every ledger account into the SVM. Accounts the SVM already holds as they are (its builtin
   * programs) are left alone; upgradeable programs are loaded from their program data, since
   * the SVM compiles a program only when it is added as one.
   */
  private loadLedger(): void {
    const programs: Array<{ pubkey: Buffer; account: StoredAccount }> = [];
    for (const { pubkey, account } of this.ledger.allAccounts()) {
      // Only executables can be the SVM's own builtins; everything else is written as stored.
      if (account.executable && sameAccount(this.read(pubkey), account)) continue;
      if (isUpgradeableProgram(account)) programs.push({ pubkey, account });
      else this.write(pubkey, account);
    }
    for (const { pubkey, account } of programs) {
      const dataAddress = account.data.subarray(4, 36);
      const programData = this.ledger.getAccount(Buffer.from(dataAddress));
      if (programData && programData.data.length > PROGRAMDATA_HEADER) {
        this.svm.addProgram(pubkey, programData.data.subarray(PROGRAMDATA_HEADER));
        this.write(Buffer.from(dataAddress), programData);
      }
      this.write(pubkey, account);
    }
  }
}

export function programDataAddress(programId: PublicKey): PublicKey {
  return PublicKey.findProgramAddressSync([programId.toBuffer()], UPGRADEABLE_LOADER_ID)[0];
}

function isUpgradeableProgram(account: StoredAccount): boolean {
  return (
    account.executable &&
    UPGRADEABLE_LOADER_ID.toBuffer().equals(account.owner) &&
    account.data.length >= 36 &&
    account.data.readUInt32LE(0) === LOADER_PROGRAM_TAG
  );
}

function fromSvmAccount(account: Account | null): StoredAccount | null {
  if (!account || account.lamports() === 0n) return null;
  return {
    lamports: Number(account.lamports()),
    owner: Buffer.from(account.owner()),
    executable: account.executable(),
    rentEpoch: RENT_EXEMPT_EPOCH,
    data: Buffer.from(account.data()),
  };
}

function toSvmAccount(account: StoredAccount | null): Account {
  if (!account) return new Account(0n, new Uint8Array(0), new Uint8Array(32), false, 0n);
  return new Account(
    BigInt(account.lamports),
    account.data,
    account.owner,
    account.executable,
    account.rentEpoch,
  );
}

function sameAccount(a: StoredAccount | null, b: StoredAccount | null): boolean {
  if (a === null || b === null) return a === b;
  return (
    a.lamports === b.lamports &&
    a.executable === b.executable &&
    a.owner.equals(b.owner) &&
    a.data.equals(b.data)
  );
}
