/**
 * A small time-bounded cache for chain records: each entry lives `ttlMs` from when it was stored,
 * at most `maxEntries` are kept (the oldest stored goes first), and concurrent misses for one key
 * share a single load, so a burst of requests for a cold track costs one RPC, not one each.
 */
export class TtlCache<V> {
  private readonly entries = new Map<string, { value: V; expiresAt: number }>();
  private readonly loading = new Map<string, Promise<V>>();

  constructor(
    private readonly maxEntries: number,
    private readonly now: () => number = () => performance.now(),
  ) {
    if (!Number.isSafeInteger(maxEntries) || maxEntries < 1) {
      throw new RangeError(`maxEntries must be a positive integer, got ${maxEntries}`);
    }
  }

  get size(): number {
    return this.entries.size;
  }

  get(key: string): V | undefined {
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    if (this.now() < entry.expiresAt) return entry.value;
    this.entries.delete(key);
    return undefined;
  }

  /** Keeps `value` for `ttlMs` (0 or less: not kept at all). */
  set(key: string, value: V, ttlMs: number): void {
    this.entries.delete(key);
    if (!(ttlMs > 0)) return;
    if (this.entries.size >= this.maxEntries) {
      // Map iteration is insertion order: the first key is the one stored longest ago.
      const oldest = this.entries.keys().next().value as string;
      this.entries.delete(oldest);
    }
    this.entries.set(key, { value, expiresAt: this.now() + ttlMs });
  }

  /**
   * The cached value, or the result of `load` (shared with concurrent callers for this key).
   * `load` decides what is kept by calling `set` itself: some answers must not be cached.
   */
  getOrLoad(key: string, load: () => Promise<V>): V | Promise<V> {
    const cached = this.get(key);
    if (cached !== undefined) return cached;
    let pending = this.loading.get(key);
    if (!pending) {
      pending = load().finally(() => this.loading.delete(key));
      this.loading.set(key, pending);
    }
    return pending;
  }
}
