import { HitResult, MeterStore, MeterStoreStats } from './meter-store';

interface Window {
  total: number;
  resetAt: number;
}

export interface MemoryMeterStoreOptions {
  /** How often windows that ended are dropped. */
  sweepEveryMs?: number;
  /** Most counters kept; past it ended windows are swept at once, then the oldest dropped. */
  maxKeys?: number;
  now?: () => number;
}

/**
 * Counters in this process only, O(1) per hit and answered without a promise. The throttler's
 * own in-memory storage keeps one timestamp per hit and filters them on every request, which
 * grows with the limit; a fixed window does not. One Map per bucket, keyed by the client string
 * as it comes (a socket's address string is the same object on every request of a connection),
 * so no key is built per request.
 */
export class MemoryMeterStore extends MeterStore {
  private readonly buckets = new Map<string, Map<string, Window>>();
  private count = 0;
  private readonly maxKeys: number;
  private readonly now: () => number;
  private readonly sweeper: NodeJS.Timeout;
  /** The bucket hit last and its counters: one budget's requests come one after another. */
  private lastBucket: string | undefined;
  private lastWindows: Map<string, Window> | undefined;

  constructor(options: MemoryMeterStoreOptions = {}) {
    super();
    this.maxKeys = options.maxKeys ?? 1_000_000;
    this.now = options.now ?? Date.now;
    this.sweeper = setInterval(() => this.sweep(), options.sweepEveryMs ?? 60_000);
    this.sweeper.unref();
  }

  hit(bucket: string, client: string, amount: number, windowMs: number): HitResult {
    const now = this.now();
    let windows = bucket === this.lastBucket ? this.lastWindows! : this.buckets.get(bucket);
    if (windows === undefined) this.buckets.set(bucket, (windows = new Map()));
    this.lastBucket = bucket;
    this.lastWindows = windows;
    let window = windows.get(client);
    if (window === undefined || window.resetAt <= now) {
      if (amount < 0) return { total: 0, msToReset: windowMs };
      if (window === undefined) {
        if (this.count >= this.maxKeys) this.makeRoom(now);
        this.count++;
      }
      window = { total: 0, resetAt: now + windowMs };
      windows.set(client, window);
    }
    window.total += amount;
    return { total: window.total, msToReset: window.resetAt - now };
  }

  stats(): MeterStoreStats {
    return { backend: 'memory', failures: 0, failOpenHits: 0, healthy: true };
  }

  /** Live counters, over all buckets. */
  get size(): number {
    return this.count;
  }

  sweep(now = this.now()): void {
    for (const windows of this.buckets.values()) {
      for (const [client, window] of windows) {
        if (window.resetAt <= now) {
          windows.delete(client);
          this.count--;
        }
      }
    }
  }

  override async close(): Promise<void> {
    clearInterval(this.sweeper);
    this.buckets.clear();
    this.lastBucket = this.lastWindows = undefined;
    this.count = 0;
  }

  /** Under a flood of distinct clients, forget the oldest counters rather than grow without end. */
  private makeRoom(now: number): void {
    this.sweep(now);
    for (const windows of this.buckets.values()) {
      let excess = this.count - Math.floor(this.maxKeys * 0.9);
      for (const client of windows.keys()) {
        if (excess-- <= 0) return;
        windows.delete(client);
        this.count--;
      }
    }
  }
}
