import { PublicKey } from '@solana/web3.js';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { GENESIS, randomStartingState } from './differential-state';
import { Step, StepGenerator } from './differential-steps';
import { DifferentialTally, MIN_SEQUENCES_FOR_SHARES } from './differential-tally';
import { Universe } from './differential-universe';
import { NativeHost } from './native-host';
import { HostAccount, HostOutcome, ProgramHost } from './program-host';
import { base58, memoizePublicKeyBase58 } from './key-cache';
import { Prng } from './prng';
import { SvmHost } from './svm-host';

/** A fixed default keeps the test command repeatable; `DIFF_SEED=random` explores new sequences. */
const BASE_SEED =
  process.env.DIFF_SEED === 'random'
    ? Math.floor(Math.random() * 0x1_0000_0000)
    : Number(process.env.DIFF_SEED ?? 20_261_123);
const SEQUENCES = Number(process.env.DIFF_SEQUENCES ?? 10_000);
const CU_FILE = join(__dirname, 'compute-units.json');

/**
 * The differential test: random instruction sequences from random starting states, run on the
 * TypeScript oracle and on the C build, must give the same error, the same log lines of the
 * tape program and the same bytes in every account, after every instruction.
 * `DIFF_SEED=<n> DIFF_SEQUENCES=1` replays the sequence a failure names.
 */
describe('TapeProgram: differential, native oracle vs program/tape.so', () => {
  beforeAll(memoizePublicKeyBase58);

  it(`runs ${SEQUENCES} random sequences with identical results`, () => {
    const u = new Universe();
    const native = new NativeHost();
    const svm = new SvmHost();
    const tally = new DifferentialTally();
    const outcomes = new Map<string, number>();
    let resetMs = 0;
    let instructions = 0;
    let steps = 0;
    const started = process.hrtime.bigint();

    for (let i = 0; i < SEQUENCES; i++) {
      const seed = (BASE_SEED + i) >>> 0;
      const rng = new Prng(seed);
      const generator = new StepGenerator(u, rng);
      const resetStarted = process.hrtime.bigint();
      native.reset();
      svm.reset();
      resetMs += Number(process.hrtime.bigint() - resetStarted) / 1e6;
      const now = GENESIS + rng.pick([0, 0, 1_800, 3_600 * 7, 3_600 * 12, 86_400 * 30]);
      for (const host of [native, svm]) {
        host.setUnixTimestamp(now);
        for (const { address, account } of randomStartingState(u, new Prng(seed))) {
          host.setAccount(address, account);
        }
      }
      const done: string[] = [];
      const length = rng.range(1, 8);
      for (let k = 0; k < length; k++) {
        const step = generator.next(native);
        steps++;
        done.push(step.text);
        const fail = (difference: string): never => {
          throw new Error(report(seed, i, done, difference, svm));
        };
        if (step.kind !== 'ix') {
          apply(step, native, svm);
        } else {
          instructions++;
          const expected = native.execute(step.ix);
          const got = svm.execute(step.ix);
          const outcome = compareOutcomes(expected, got);
          if (outcome) fail(outcome);
          const kind = got.error === null ? 'ok' : JSON.stringify(got.error);
          outcomes.set(kind, (outcomes.get(kind) ?? 0) + 1);
          tally.record(step.ix, got, `${step.text} (DIFF_SEED=${seed} DIFF_SEQUENCES=1)`);
        }
        const accounts = compareAccounts(u, native, svm);
        if (accounts) fail(accounts);
      }
    }

    const seconds = Number(process.hrtime.bigint() - started) / 1e9;
    const table = tally.summary();
    console.log(
      `differential: ${SEQUENCES} sequences, ${instructions} instructions in ${seconds.toFixed(1)} s ` +
        `(DIFF_SEED=${BASE_SEED}; host resets ${resetMs.toFixed(0)} ms in all)\n` +
        `outcomes: ${JSON.stringify(Object.fromEntries(outcomes))}\n` +
        `per instruction kind: ${JSON.stringify(table)}`,
    );
    if (process.env.RECORD_CU === '1')
      writeFileSync(CU_FILE, `${JSON.stringify(table, null, 2)}\n`);
    // Every sequence ran at least one step, and most steps are instructions.
    expect(steps).toBeGreaterThanOrEqual(SEQUENCES);
    if (SEQUENCES >= 100) expect(instructions).toBeGreaterThan(steps / 2);
    // The generator reaches every instruction's success path, not only its refusals.
    if (SEQUENCES >= MIN_SEQUENCES_FOR_SHARES) expect(tally.belowMinimumShare()).toEqual([]);
    // What the client requests covers what every successful instruction used.
    expect(tally.overBudget.slice(0, 10)).toEqual([]);
  });
});

function apply(step: Exclude<Step, { kind: 'ix' }>, native: ProgramHost, svm: ProgramHost): void {
  if (step.kind === 'clock') {
    native.setUnixTimestamp(step.unixTimestamp);
    svm.setUnixTimestamp(step.unixTimestamp);
    return;
  }
  const before = native.getAccount(step.address);
  const account: Partial<HostAccount> = {
    ...before,
    lamports: (before?.lamports ?? 0) + step.lamports,
  };
  native.setAccount(step.address, account);
  svm.setAccount(step.address, account);
}

function compareOutcomes(expected: HostOutcome, got: HostOutcome): string | null {
  if (JSON.stringify(expected.error) !== JSON.stringify(got.error)) {
    return (
      `error: expected ${JSON.stringify(expected.error)}, got ${JSON.stringify(got.error)}\n` +
      `expected logs: ${JSON.stringify(expected.logs)}\ngot logs: ${JSON.stringify(got.logs)}`
    );
  }
  const length = Math.max(expected.logs.length, got.logs.length);
  for (let i = 0; i < length; i++) {
    if (expected.logs[i] !== got.logs[i]) {
      return (
        `log line ${i}: expected ${JSON.stringify(expected.logs[i])}, got ${JSON.stringify(got.logs[i])}\n` +
        `expected logs: ${JSON.stringify(expected.logs)}\ngot logs: ${JSON.stringify(got.logs)}`
      );
    }
  }
  return null;
}

/** Every account either host knows; the SVM host's fee payer is not among them. */
function compareAccounts(u: Universe, native: ProgramHost, svm: ProgramHost): string | null {
  const keys = new Map<string, PublicKey>();
  for (const k of [...native.knownAccounts(), ...svm.knownAccounts()]) keys.set(base58(k), k);
  for (const key of keys.values()) {
    const a = native.getAccount(key);
    const b = svm.getAccount(key);
    const difference = accountDifference(a, b);
    if (difference) return `account ${u.label(key)} (${key.toBase58()}): ${difference}`;
  }
  return null;
}

function accountDifference(a: HostAccount | undefined, b: HostAccount | undefined): string | null {
  if (!a || !b) return a === b ? null : `expected ${summary(a)}, got ${summary(b)}`;
  if (a.lamports !== b.lamports) return `lamports: expected ${a.lamports}, got ${b.lamports}`;
  if (!a.owner.equals(b.owner))
    return `owner: expected ${a.owner.toBase58()}, got ${b.owner.toBase58()}`;
  if (!a.data.equals(b.data)) {
    let at = 0;
    while (at < a.data.length && a.data[at] === b.data[at]) at++;
    return (
      `data differs from byte ${at}: expected ${a.data.length}B ${a.data.toString('hex')}, ` +
      `got ${b.data.length}B ${b.data.toString('hex')}`
    );
  }
  return null;
}

function summary(a: HostAccount | undefined): string {
  if (!a) return 'no account';
  return `${a.lamports} lamports, owner ${a.owner.toBase58()}, ${a.data.length}B`;
}

function report(
  seed: number,
  index: number,
  steps: string[],
  difference: string,
  svm: SvmHost,
): string {
  return [
    `differential mismatch in sequence ${index} of base seed ${BASE_SEED}; ` +
      `replay: DIFF_SEED=${seed} DIFF_SEQUENCES=1`,
    'steps:',
    ...steps.map((s, i) => `  ${i + 1}. ${s}${i === steps.length - 1 ? '   <-- here' : ''}`),
    `first difference: ${difference}`,
    `svm transaction logs:\n  ${svm.lastLogLines.join('\n  ')}`,
  ].join('\n');
}
