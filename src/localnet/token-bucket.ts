export interface TokenBucketOptions {
  /** Requests allowed at once (the bucket's size). */
  burst: number;
  /** Requests added back per minute. */
  perMinute: number;
  /** Keys remembered; past it, buckets that have refilled are forgotten, then the oldest. */
  maxKeys: number;
}

interface Bucket {
  tokens: number;
  at: number;
}

/** One token bucket per key (a client address, a recipient), in memory. */
export class TokenBuckets {
  private readonly buckets = new Map<string, Bucket>();

  constructor(
    private readonly options: TokenBucketOptions,
    private readonly now: () => number = Date.now,
  ) {}

  /** Takes one token for `key`: 0 when granted, else the milliseconds until one is back. */
  take(key: string): number {
    const now = this.now();
    const bucket = this.refilled(key, now);
    if (bucket.tokens >= 1) {
      bucket.tokens -= 1;
      this.buckets.delete(key);
      this.buckets.set(key, bucket);
      this.bound(now);
      return 0;
    }
    const perMs = this.options.perMinute / 60_000;
    return perMs > 0 ? Math.ceil((1 - bucket.tokens) / perMs) : Infinity;
  }

  get size(): number {
    return this.buckets.size;
  }

  private refilled(key: string, now: number): Bucket {
    const bucket = this.buckets.get(key) ?? { tokens: this.options.burst, at: now };
    const perMs = this.options.perMinute / 60_000;
    bucket.tokens = Math.min(this.options.burst, bucket.tokens + (now - bucket.at) * perMs);
    bucket.at = now;
    return bucket;
  }

  private bound(now: number): void {
    if (this.buckets.size <= this.options.maxKeys) return;
    for (const [key] of this.buckets) {
      if (this.refilled(key, now).tokens >= this.options.burst) this.buckets.delete(key);
    }
    // Still full of clients that are all limited: forget the least recently granted tenth, so
    // this sweep runs once per many new keys, not on every request.
    const target = Math.floor(this.options.maxKeys * 0.9);
    for (const [key] of this.buckets) {
      if (this.buckets.size <= target) break;
      this.buckets.delete(key);
    }
  }
}
