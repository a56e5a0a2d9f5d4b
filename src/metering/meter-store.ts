import type { ThrottlerStorage } from '@nestjs/throttler';

type ThrottlerStorageRecord = Awaited<ReturnType<ThrottlerStorage['increment']>>;

/** A counter after one hit: its total in the current window and the time left in the window. */
export interface HitResult {
  total: number;
  msToReset: number;
  /** True when the store could not count (failing open): the total is a stand-in. */
  degraded?: boolean;
}

export interface MeterStoreStats {
  backend: 'memory' | 'redis';
  /** Store operations that failed since start (each one served the request unmetered). */
  failures: number;
  /** Hits let through without counting because the store was failing. */
  failOpenHits: number;
  /** False while the store is known to be failing. */
  healthy: boolean;
}

/**
 * Where per-client counters live: one counter per bucket (a budget) and client, in fixed windows
 * that start at the counter's first hit and last `windowMs`. It is the @nestjs/throttler storage (ThrottlerStorage) of the metering guard, and
 * adds `hit` with an amount, which byte budgets need and the throttler interface lacks.
 * The DI token of the port is this class.
 */
export abstract class MeterStore implements ThrottlerStorage {
  /**
   * Adds `amount` (may be negative, to give back a refused charge) to the counter of `client` in
   * `bucket`. A new window starts when the counter has none; a negative amount never starts one.
   * A store that can answer at once (in memory) returns the result itself, not a promise: the
   * hot path then allocates no promise at all.
   */
  abstract hit(
    bucket: string,
    client: string,
    amount: number,
    windowMs: number,
  ): HitResult | Promise<HitResult>;

  abstract stats(): MeterStoreStats;

  /** Releases timers and connections. */
  async close(): Promise<void> {}

  /** Nest calls this on the provider instance when the application closes. */
  async onModuleDestroy(): Promise<void> {
    await this.close();
  }

  /** The throttler's interface: one hit. Blocking lasts until the window ends. */
  async increment(
    key: string,
    ttl: number,
    limit: number,
    _blockDuration: number,
    throttlerName: string,
  ): Promise<ThrottlerStorageRecord> {
    const { total, msToReset } = await this.hit(throttlerName, key, 1, ttl);
    const timeToExpire = Math.max(1, Math.ceil(msToReset / 1000));
    const isBlocked = total > limit;
    return {
      totalHits: total,
      timeToExpire,
      isBlocked,
      timeToBlockExpire: isBlocked ? timeToExpire : 0,
    };
  }
}
