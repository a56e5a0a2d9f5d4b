import type { ReferenceVerdict } from './track-gc-decision';

/** One pass's counts (also the JSON log line). */
export interface TrackGcPass {
  /** Blobs examined (the cursor's page and the targeted tapes' blobs). */
  checked: number;
  /** Tapes checked whole because they changed (targeted checks, before the cursor's page). */
  tapesChecked: number;
  referencesDropped: number;
  deleted: number;
  deletedBytes: number;
  /** Blobs with a dead reference that a live or fresh one kept. */
  kept: number;
  byReason: Record<Exclude<ReferenceVerdict, 'live' | 'pending'>, number>;
  /** The pass reached the end of the store and starts again from the first blob. */
  wrapped: boolean;
  ms: number;
  /** Another replica held the lease: nothing was examined. */
  skipped?: boolean;
  /** The lease was lost mid-pass (not renewed in time): the pass stopped early. */
  leaseLost?: boolean;
}

/** When a pass ran (unix ms), for checking that replicas never overlap. */
export interface TrackGcPassWindow {
  startedAt: number;
  endedAt: number;
}

export interface TrackGcStats {
  enabled: boolean;
  /** Why it does not run although storage.gc.enabled: a reader holds no reference index. */
  disabledReason?: 'reader';
  passes: number;
  failedPasses: number;
  checked: number;
  tapesChecked: number;
  /** Tapes waiting for a targeted check (a version certified, bytes staged). */
  watchedTapes: number;
  referencesDropped: number;
  deleted: number;
  deletedBytes: number;
  lastPass?: TrackGcPass & { at: string };
  lastError?: string;
  /** Passes not run because another replica held the lease. */
  skippedPasses: number;
  /** The latest passes this process ran (at most RECENT_PASSES), oldest first. */
  recentPasses: TrackGcPassWindow[];
}

const RECENT_PASSES = 20;

export function emptyPass(): TrackGcPass {
  return {
    checked: 0,
    tapesChecked: 0,
    referencesDropped: 0,
    deleted: 0,
    deletedBytes: 0,
    kept: 0,
    byReason: {
      'unknown-owner': 0,
      'tape-expired': 0,
      'version-dropped': 0,
      'staged-superseded': 0,
      'staged-abandoned': 0,
    },
    wrapped: false,
    ms: 0,
  };
}

/** The collector's totals since start-up (/healthz details `track_gc`, metrics). */
export class TrackGcTotals {
  private readonly totals: TrackGcStats;

  constructor(state: Pick<TrackGcStats, 'enabled' | 'disabledReason'>) {
    this.totals = {
      ...state,
      passes: 0,
      failedPasses: 0,
      checked: 0,
      tapesChecked: 0,
      watchedTapes: 0,
      referencesDropped: 0,
      deleted: 0,
      deletedBytes: 0,
      skippedPasses: 0,
      recentPasses: [],
    };
  }

  snapshot(watchedTapes: number): TrackGcStats {
    return { ...this.totals, watchedTapes, recentPasses: [...this.totals.recentPasses] };
  }

  failed(err: unknown): void {
    this.totals.failedPasses++;
    this.totals.lastError = (err as Error).message;
  }

  skipped(): void {
    this.totals.skippedPasses++;
  }

  /** A pass ran under the lease from `startedAt` to `endedAt`. */
  ran(window: TrackGcPassWindow): void {
    this.totals.recentPasses.push(window);
    if (this.totals.recentPasses.length > RECENT_PASSES) this.totals.recentPasses.shift();
  }

  /** Adds what a pass or a tape's check did. */
  count(work: TrackGcPass): void {
    const t = this.totals;
    t.checked += work.checked;
    t.tapesChecked += work.tapesChecked;
    t.referencesDropped += work.referencesDropped;
    t.deleted += work.deleted;
    t.deletedBytes += work.deletedBytes;
  }

  /** A whole pass: counted, and remembered as the last one. */
  record(pass: TrackGcPass): void {
    this.totals.passes++;
    this.count(pass);
    this.totals.lastPass = { ...pass, at: new Date().toISOString() };
  }
}
