/**
 * SQLite drivers on the gateway's write paths (`npm run bench -- sqlite`): node:sqlite against
 * better-sqlite3, through the gateway's own classes (src/config/sqlite.ts picks the driver):
 *
 * - ledger: one local-network transaction as the embedded network commits it, in one SQLite
 *   transaction: 3 account writes (an upsert each, 165-byte data), 1 delete, the transaction
 *   record (a 700-byte wire transaction, logs, balances). WAL, synchronous=NORMAL.
 * - references: one track-reference claim as an upload records it (BEGIN IMMEDIATE, an
 *   existence check, the owner's segment total, an upsert). WAL, default synchronous (FULL).
 *
 * Each round runs each driver in its own process (alternating, so machine load touches both
 * alike), medians of the rounds. On Node 20 only better-sqlite3 exists. better-sqlite3 12 on
 * Node 24 may abort when a statement is garbage-collected: such a round is reported, not timed.
 *
 * Environment: BENCH_SQLITE_ROUNDS (default 5), BENCH_SQLITE_OPS (default 5000).
 */
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sqliteDriver, SqliteDriverName } from '../src/config/sqlite';
import { LedgerStore } from '../src/localnet/ledger/ledger-store';
import { TrackReferenceIndex } from '../src/tracks/track-reference-index';
import { median } from './wrk-runner';

const ROUNDS = Number(process.env.BENCH_SQLITE_ROUNDS ?? 5);
const OPS = Number(process.env.BENCH_SQLITE_OPS ?? 5000);

interface Figures {
  ledgerTxPerSec: number;
  claimsPerSec: number;
}

function perSecond(ops: number, work: () => void): number {
  const started = process.hrtime.bigint();
  work();
  return ops / (Number(process.hrtime.bigint() - started) / 1e9);
}

/** One round in this process, with the driver TAPE_SQLITE_DRIVER names. */
function round(): Figures {
  const dir = mkdtempSync(join(tmpdir(), 'bench-sqlite-'));
  try {
    const ledger = new LedgerStore(join(dir, 'ledger'));
    const keys = Array.from({ length: 64 }, () => randomBytes(32));
    const owner = randomBytes(32);
    const data = randomBytes(165);
    const raw = randomBytes(700);
    const account = (i: number) => ({
      lamports: 1_000_000 + i,
      owner,
      executable: false,
      rentEpoch: 2n ** 64n - 1n,
      data,
    });
    const ledgerTxPerSec = perSecond(OPS, () => {
      for (let i = 0; i < OPS; i++) {
        ledger.atomically(() => {
          ledger.writeAccounts([
            { pubkey: keys[i % 64], account: account(i) },
            { pubkey: keys[(i + 1) % 64], account: account(i) },
            { pubkey: keys[(i + 2) % 64], account: account(i) },
            { pubkey: keys[(i + 3) % 64], account: null },
          ]);
          ledger.insertTransaction({
            signature: randomBytes(64),
            slot: i,
            blockTime: 1_800_000_000 + i,
            err: null,
            logs: ['Program Tape111 invoke [1]', 'Program Tape111 consumed 3400 of 200000', 'ok'],
            fee: 5000,
            raw,
            preBalances: [1, 2, 3],
            postBalances: [1, 2, 3],
            unitsConsumed: 3400,
          });
        });
      }
    });
    ledger.close();

    const refs = new TrackReferenceIndex(join(dir, 'references.sqlite'));
    const claimsPerSec = perSecond(OPS, () => {
      for (let i = 0; i < OPS; i++) {
        refs.claim(
          {
            commitment: randomBytes(32),
            track: `Track${i % 100}`,
            tape: 'Tape1',
            role: i % 2 ? 'segment' : 'track',
            size: 8 * 1024 * 1024,
          },
          { maxOwnerSegmentBytes: 1024 ** 4 },
        );
      }
    });
    refs.close();
    return { ledgerTxPerSec, claimsPerSec };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

function child(driver: SqliteDriverName): Figures | string {
  const run = spawnSync(process.execPath, [__filename, '--round'], {
    env: { ...process.env, TAPE_SQLITE_DRIVER: driver },
    encoding: 'utf8',
    timeout: 5 * 60 * 1000,
  });
  if (run.status !== 0) {
    const why = /Assertion failed: .*/.exec(run.stderr)?.[0] ?? run.stderr.trim().split('\n')[0];
    return `exit ${run.status ?? run.signal}: ${why}`;
  }
  return JSON.parse(run.stdout) as Figures;
}

function main(): void {
  const drivers: SqliteDriverName[] =
    sqliteDriver({}) === 'node:sqlite' ? ['node:sqlite', 'better-sqlite3'] : ['better-sqlite3'];
  const figures = new Map<SqliteDriverName, Figures[]>(drivers.map((d) => [d, []]));
  const failures = new Map<SqliteDriverName, string[]>(drivers.map((d) => [d, []]));
  for (let r = 0; r < ROUNDS; r++) {
    for (const driver of r % 2 ? [...drivers].reverse() : drivers) {
      const result = child(driver);
      if (typeof result === 'string') failures.get(driver)!.push(result);
      else figures.get(driver)!.push(result);
    }
  }
  process.stdout.write(
    `Node ${process.version}, ${OPS} operations per round, ${ROUNDS} rounds, medians\n` +
      `driver           ledger tx/s   reference claims/s   rounds failed\n`,
  );
  for (const driver of drivers) {
    const done = figures.get(driver)!;
    const med = (pick: (f: Figures) => number) =>
      done.length ? Math.round(median(done.map(pick))).toString() : '-';
    process.stdout.write(
      `${driver.padEnd(16)} ${med((f) => f.ledgerTxPerSec).padStart(11)}   ` +
        `${med((f) => f.claimsPerSec).padStart(18)}   ${failures.get(driver)!.length}/${ROUNDS}\n`,
    );
    for (const why of new Set(failures.get(driver))) process.stdout.write(`  ${why}\n`);
  }
}

if (process.argv.includes('--round')) process.stdout.write(JSON.stringify(round()));
else main();
