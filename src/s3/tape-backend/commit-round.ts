import type { PlanBase } from './tape-versions';

/** Counters for tests and metrics: versions published and writes they carried. */
export interface GroupCommitStats {
  publishes: number;
  writes: number;
  rebases: number;
  /** Groups planned on the version of the group before them while its Publish was in flight. */
  pipelined: number;
}

/** A version planned, built and stored, as the next group may plan on it before it is confirmed. */
export interface PlannedVersion {
  /**
   * The tape's sequence (the compare-and-swap counter) and latest version number once it is
   * published, and its root.
   */
  sequence: number;
  latestVersion: number;
  root: Buffer;
  base: PlanBase;
}

/** A group on its way: its version once planned (undefined: nothing to plan on), and its end. */
export interface Round {
  planned: Promise<PlannedVersion | undefined>;
  /** Resolves once its Publish is being certified and sent (or the group ended without one). */
  publishing: Promise<void>;
  /** When `publishing` resolved (ms since the epoch). */
  publishingAt?: number;
  /** The root it published, once confirmed. */
  published?: Buffer;
  /** Its writes. */
  size: number;
  /** Resolves once the group's writes are answered (whatever the outcome). */
  done: Promise<void>;
}

/** What a group tells the next one while on its way. */
export interface RoundSignals {
  planned: (version: PlannedVersion | undefined) => void;
  publishing: () => void;
  published: (root: Buffer) => void;
}

/** A moving average's weight for the newest sample. */
export const TIMING_WEIGHT = 0.3;

/**
 * What the group commit of a gateway counts (GroupCommitStats) and how long its steps lately
 * took (moving averages, ms): planning, building and storing a group; certifying and
 * publishing it. The queue times the next group's start with them.
 */
export class GroupCommitTally {
  readonly stats: GroupCommitStats = { publishes: 0, writes: 0, rebases: 0, pipelined: 0 };
  readonly timing = { planMs: 20, publishMs: 40 };

  average(key: keyof GroupCommitTally['timing'], ms: number): void {
    this.timing[key] += TIMING_WEIGHT * (ms - this.timing[key]);
  }
}
