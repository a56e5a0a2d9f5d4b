/** Anything that knows its own weight in bytes: Buffers, or a small value object. */
export interface Weighed {
  readonly byteLength: number;
}

interface Entry<V> {
  key: string;
  value: V;
  newer: Entry<V> | undefined;
  older: Entry<V> | undefined;
}

/**
 * A least-recently-used cache bounded by the total bytes of its values, O(1) per operation: a
 * Map finds entries, a doubly linked list keeps them in recency order. (A Map alone, re-inserting
 * on each hit and evicting from its front, slows down as V8 walks over deleted slots.)
 * Track content is addressed by commitment and never changes, so entries never go stale.
 */
export class ByteLru<V extends Weighed = Buffer> {
  private readonly entries = new Map<string, Entry<V>>();
  private newest: Entry<V> | undefined;
  private oldest: Entry<V> | undefined;
  private total = 0;

  constructor(
    readonly maxBytes: number,
    /** Told of each entry evicted to make room (not of `delete`): a disk cache removes its file. */
    private readonly onEvict?: (key: string, value: V) => void,
  ) {
    if (!Number.isSafeInteger(maxBytes) || maxBytes < 0) {
      throw new RangeError(`maxBytes must be a non-negative integer, got ${maxBytes}`);
    }
  }

  get bytes(): number {
    return this.total;
  }

  get size(): number {
    return this.entries.size;
  }

  get(key: string): V | undefined {
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    if (entry !== this.newest) {
      this.unlink(entry);
      this.pushNewest(entry);
    }
    return entry.value;
  }

  has(key: string): boolean {
    return this.entries.has(key);
  }

  /** Stores the value unless it alone is bigger than the whole budget; evicts the oldest. */
  set(key: string, value: V): boolean {
    this.delete(key);
    if (value.byteLength > this.maxBytes) return false;
    const entry: Entry<V> = { key, value, newer: undefined, older: undefined };
    this.entries.set(key, entry);
    this.pushNewest(entry);
    this.total += value.byteLength;
    while (this.total > this.maxBytes && this.oldest) {
      const evicted = this.oldest;
      this.delete(evicted.key);
      this.onEvict?.(evicted.key, evicted.value);
    }
    return true;
  }

  delete(key: string): boolean {
    const entry = this.entries.get(key);
    if (!entry) return false;
    this.entries.delete(key);
    this.unlink(entry);
    this.total -= entry.value.byteLength;
    return true;
  }

  clear(): void {
    this.entries.clear();
    this.newest = this.oldest = undefined;
    this.total = 0;
  }

  private pushNewest(entry: Entry<V>): void {
    entry.older = this.newest;
    entry.newer = undefined;
    if (this.newest) this.newest.newer = entry;
    this.newest = entry;
    this.oldest ??= entry;
  }

  private unlink(entry: Entry<V>): void {
    if (entry.newer) entry.newer.older = entry.older;
    else this.newest = entry.older;
    if (entry.older) entry.older.newer = entry.newer;
    else this.oldest = entry.newer;
    entry.newer = entry.older = undefined;
  }
}
