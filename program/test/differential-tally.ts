import { TransactionInstruction } from '@solana/web3.js';
import { ComputeUnitEstimator } from '../../src/chain/compute-units';
import { DEFAULT_TAPE_PROGRAM_ID } from '../../src/chain/program-ids';
import { Tag } from '../../src/chain/tape-instruction-data';
import { HostOutcome } from './program-host';

/**
 * Least share of successful instructions per kind: about 70 % of what the generator gives over
 * the default 10,000 sequences (shares in compute-units.json). A generator that stops reaching
 * an instruction's success path fails the test instead of testing only refusals. InitConfig
 * succeeds only where a starting state has no config (about 8 times in 1,500): at least 2.
 */
export const MIN_SUCCESS_SHARE: Record<keyof typeof Tag, number> = {
  InitConfig: 0.001,
  CreateTape: 0.033,
  ExtendTape: 0.05,
  ResizeTape: 0.085,
  SetDelegate: 0.35,
  Publish: 0.047,
  SetCurrent: 0.049,
  RemoveAlias: 0.04,
  SetKeep: 0.148,
};

/** Sequences below which shares vary too much from seed to seed to be checked. */
export const MIN_SEQUENCES_FOR_SHARES = 10_000;

/** The compute units of one successful instruction against what the client would request. */
export interface TightestFit {
  units: number;
  dataBytes: number;
  budget: number;
}

interface KindTally {
  attempts: number;
  successes: number;
  units: number[];
  tightest?: TightestFit;
}

/** What the differential test saw per instruction kind: attempts, successes, compute units. */
export class DifferentialTally {
  private readonly kinds = new Map<string, KindTally>();
  private readonly estimator = new ComputeUnitEstimator(DEFAULT_TAPE_PROGRAM_ID);
  /** Successful instructions that used more than the client's budget for them. */
  readonly overBudget: string[] = [];

  /** `ix` as generated (before any mutation decides its kind, its first data byte). */
  record(ix: TransactionInstruction, outcome: HostOutcome, text: string): void {
    const kind = Tag[ix.data[0]] ?? 'malformed';
    const tally = this.kinds.get(kind) ?? { attempts: 0, successes: 0, units: [] };
    this.kinds.set(kind, tally);
    tally.attempts++;
    if (outcome.error !== null) return;
    tally.successes++;
    if (outcome.computeUnits === undefined) return;
    const units = outcome.computeUnits;
    tally.units.push(units);
    const budget = this.estimator.estimate(ix);
    if (units > budget) this.overBudget.push(`${text}: ${units} CU, budget ${budget}`);
    if (!tally.tightest || budget - units < tally.tightest.budget - tally.tightest.units) {
      tally.tightest = { units, dataBytes: ix.data.length, budget };
    }
  }

  /** Kinds whose share of successes is under MIN_SUCCESS_SHARE, as lines for a failure. */
  belowMinimumShare(): string[] {
    return Object.entries(MIN_SUCCESS_SHARE)
      .map(([kind, min]) => {
        const t = this.kinds.get(kind);
        const share = t && t.attempts > 0 ? t.successes / t.attempts : 0;
        return { kind, min, share, t };
      })
      .filter(({ min, share }) => share < min)
      .map(
        ({ kind, min, share, t }) =>
          `${kind}: ${t?.successes ?? 0} of ${t?.attempts ?? 0} succeeded ` +
          `(${(share * 100).toFixed(1)} %, at least ${(min * 100).toFixed(1)} % expected)`,
      );
  }

  /** Per kind: shares, and the compute units of the successes (compute-units.json). */
  summary(): Record<string, KindSummary> {
    const table: Record<string, KindSummary> = {};
    for (const kind of Object.keys(MIN_SUCCESS_SHARE)) {
      const t = this.kinds.get(kind);
      if (!t) continue;
      const values = [...t.units].sort((x, y) => x - y);
      table[kind] = {
        attempts: t.attempts,
        successes: t.successes,
        count: values.length,
        median: values[Math.floor(values.length / 2)] ?? 0,
        max: values[values.length - 1] ?? 0,
        tightest: t.tightest,
      };
    }
    return table;
  }
}

export interface KindSummary {
  attempts: number;
  successes: number;
  /** Successes whose compute units the host reported (the SVM's). */
  count: number;
  median: number;
  max: number;
  /** The success with the least headroom under its budget. */
  tightest?: TightestFit;
}
