/** Anything that knows its own weight in bytes: Buffers, or a small value object. */
export interface Weighed {
  readonly byteLength: number;
}

/**
 * A least-recently-used cache bounded by the total bytes of its values, O(1) per operation
 * (a Map keeps insertion order: a hit is re-inserted at the end, eviction takes the front).
 * Track content is addressed by commitment and never changes, so entries never go stale.
 */
export class ByteLru<V extends Weighed = Buffer> {
  private readonly entries = new Map<string, V>();
  private total = 0;

  constructor(readonly maxBytes: number) {
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
    const value = this.entries.get(key);
    if (value === undefined) return undefined;
    this.entries.delete(key);
    this.entries.set(key, value);
    return value;
  }

  has(key: string): boolean {
    return this.entries.has(key);
  }

  /** Stores the value unless it alone is bigger than the whole budget; evicts the oldest. */
  set(key: string, value: V): boolean {
    this.delete(key);
    if (value.byteLength > this.maxBytes) return false;
    this.entries.set(key, value);
    this.total += value.byteLength;
    for (const [oldest, old] of this.entries) {
      if (this.total <= this.maxBytes) break;
      this.entries.delete(oldest);
      this.total -= old.byteLength;
    }
    return true;
  }

  delete(key: string): boolean {
    const value = this.entries.get(key);
    if (value === undefined) return false;
    this.entries.delete(key);
    this.total -= value.byteLength;
    return true;
  }

  clear(): void {
    this.entries.clear();
    this.total = 0;
  }
}
