/** Reads a tape's status (when `withSite`) and these names, and stores what it read. */
export type SiteFetch = (tape: string, names: string[], withSite: boolean) => Promise<void>;

interface Batch {
  names: Set<string>;
  withSite: boolean;
  done: Promise<void>;
  settle: (error?: Error) => void;
}

/**
 * Coalesces what site requests miss. One load in flight per key (a tape's status, or one name
 * of it): a request that needs a key being loaded waits for that load. Keys missed while the
 * event loop turns (requests that arrived together) go out together, one fetch per tape, when
 * the loop next checks its immediates: a page and its assets cost one request to the chain,
 * not one each.
 */
export class SiteBatchLoader {
  private readonly inFlight = new Map<string, Promise<void>>();
  private readonly queued = new Map<string, Batch>();
  private scheduled = false;

  constructor(
    private readonly fetch: SiteFetch,
    private readonly schedule: (run: () => void) => void = (run) => setImmediate(run),
  ) {}

  /** Resolves once every key asked for has been read (by this load or one already running). */
  load(tape: string, names: readonly string[], withSite: boolean): Promise<void> {
    const waits = new Set<Promise<void>>();
    let batch: Batch | undefined;
    const claim = (k: string, add: (b: Batch) => void) => {
      const running = this.inFlight.get(k);
      if (running) return void waits.add(running);
      batch ??= this.batchOf(tape);
      add(batch);
      this.inFlight.set(k, batch.done);
      waits.add(batch.done);
    };
    if (withSite) claim(siteKey(tape), (b) => (b.withSite = true));
    for (const name of names) claim(nameKey(tape, name), (b) => b.names.add(name));
    if (waits.size === 1) return waits.values().next().value as Promise<void>;
    return Promise.all(waits).then(() => undefined);
  }

  /** True while the tape's status is being read. */
  loadingSite(tape: string): boolean {
    return this.inFlight.has(siteKey(tape));
  }

  private batchOf(tape: string): Batch {
    const queued = this.queued.get(tape);
    if (queued) return queued;
    let settle!: (error?: Error) => void;
    const done = new Promise<void>((resolve, reject) => {
      settle = (error) => (error === undefined ? resolve() : reject(error));
    });
    // Nobody may be waiting on a background refresh: its failure is reported elsewhere.
    done.catch(() => undefined);
    const batch: Batch = { names: new Set(), withSite: false, done, settle };
    this.queued.set(tape, batch);
    if (!this.scheduled) {
      this.scheduled = true;
      this.schedule(() => this.flush());
    }
    return batch;
  }

  private flush(): void {
    this.scheduled = false;
    const batches = [...this.queued];
    this.queued.clear();
    for (const [tape, batch] of batches) {
      const names = [...batch.names];
      const finish = (error?: Error) => {
        if (batch.withSite) this.release(siteKey(tape), batch.done);
        for (const name of names) this.release(nameKey(tape, name), batch.done);
        batch.settle(error);
      };
      let fetching: Promise<void>;
      try {
        fetching = this.fetch(tape, names, batch.withSite);
      } catch (error) {
        fetching = Promise.reject(asError(error));
      }
      fetching.then(
        () => finish(),
        (error: unknown) => finish(asError(error)),
      );
    }
  }

  private release(k: string, done: Promise<void>): void {
    if (this.inFlight.get(k) === done) this.inFlight.delete(k);
  }
}

function siteKey(tape: string): string {
  return tape;
}

/** Tape addresses have no `/`: a name key never equals a site key. */
function nameKey(tape: string, name: string): string {
  return `${tape}/${name}`;
}

function asError(error: unknown): Error {
  return error instanceof Error ? error : new Error(`site read failed: ${String(error)}`);
}
