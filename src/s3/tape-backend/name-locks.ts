/**
 * Serialises the chain writes of one object name. A write reads the name's current track (the
 * program needs it as SetName's `previousTrack`, and RemoveName's track) and then sends: two
 * writes of one key interleaved would both read the same old track, and the second would be
 * refused (`account mismatch`). Writes of different names run in parallel.
 */
export class NameLocks {
  private readonly tails = new Map<string, Promise<void>>();

  /** Runs `work` once it holds every key's lock (taken in a fixed order: no deadlock). */
  async run<T>(keys: string[], work: () => Promise<T>): Promise<T> {
    const ordered = [...new Set(keys)].sort();
    const releases: (() => void)[] = [];
    try {
      for (const key of ordered) releases.push(await this.acquire(key));
      return await work();
    } finally {
      for (const release of releases.reverse()) release();
    }
  }

  /** Locks held or awaited right now (for tests: every lock is given back). */
  get size(): number {
    return this.tails.size;
  }

  private async acquire(key: string): Promise<() => void> {
    const previous = this.tails.get(key) ?? Promise.resolve();
    let release!: () => void;
    const mine = new Promise<void>((resolve) => (release = resolve));
    const tail = previous.then(() => mine);
    this.tails.set(key, tail);
    await previous;
    return () => {
      release();
      // The last holder leaves nothing behind, so the map does not grow with every name written.
      if (this.tails.get(key) === tail) this.tails.delete(key);
    };
  }
}
