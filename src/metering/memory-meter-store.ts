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
 * Counters in this process only: one Map entry per client and budget, O(1) per hit. The
 * throttler's own in-memory storage keeps one timestamp per hit and filters them on every
 * request, which grows with the limit; a fixed window does not.
 */
export class MemoryMeterStore extends MeterStore {
  private readonly windows = new Map<string, Window>();
  private readonly maxKeys: number;
  private readonly now: () => number;
  private readonly sweeper: NodeJS.Timeout;

  constructor(options: MemoryMeterStoreOptions = {}) {
    super();
    this.maxKeys = options.maxKeys ?? 1_000_000;
    this.now = options.now ?? Date.now;
    this.sweeper = setInterval(() => this.sweep(), options.sweepEveryMs ?? 60_000);
    this.sweeper.unref();
  }

  async hit(key: string, amount: number, windowMs: number): Promise<HitResult> {
    return this.hitNow(key, amount, windowMs);
  }

  /** The same as `hit`, without a promise. */
  hitNow(key: string, amount: number, windowMs: number): HitResult {
    const now = this.now();
    let window = this.windows.get(key);
    if (window === undefined || window.resetAt <= now) {
      if (amount < 0) return { total: 0, msToReset: windowMs };
      if (window === undefined && this.windows.size >= this.maxKeys) this.makeRoom(now);
      window = { total: 0, resetAt: now + windowMs };
      this.windows.set(key, window);
    }
    window.total += amount;
    return { total: window.total, msToReset: window.resetAt - now };
  }

  stats(): MeterStoreStats {
    return { backend: 'memory', failures: 0, failOpenHits: 0, healthy: true };
  }

  get size(): number {
    return this.windows.size;
  }

  sweep(now = this.now()): void {
    for (const [key, window] of this.windows) if (window.resetAt <= now) this.windows.delete(key);
  }

  override async close(): Promise<void> {
    clearInterval(this.sweeper);
    this.windows.clear();
  }

  /** Under a flood of distinct clients, forget the oldest counters rather than grow without end. */
  private makeRoom(now: number): void {
    this.sweep(now);
    let excess = this.windows.size - Math.floor(this.maxKeys * 0.9);
    for (const key of this.windows.keys()) {
      if (excess-- <= 0) break;
      this.windows.delete(key);
    }
  }
}
