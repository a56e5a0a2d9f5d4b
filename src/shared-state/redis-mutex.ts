import type Redis from 'ioredis';
import { RedisLeases } from './redis-lease';

const POLL_MS = 100;

/** The lock stayed held by another holder for longer than the waiter's `maxWaitMs`. */
export class LockWaitTimeoutError extends Error {
  constructor(
    readonly key: string,
    readonly waitedMs: number,
  ) {
    super(`${key} stayed locked for ${waitedMs} ms`);
    this.name = 'LockWaitTimeoutError';
  }
}

/**
 * A lock over all replicas: the shared lease (RedisLeases) held while the work runs. Waiters
 * poll; one that waits longer than `maxWaitMs` fails with a LockWaitTimeoutError.
 */
export class RedisMutex {
  private readonly leases: RedisLeases;

  constructor(
    redis: Redis,
    private readonly ttlMs = 30_000,
    private readonly maxWaitMs = 10 * 60 * 1000,
  ) {
    this.leases = new RedisLeases(redis);
  }

  async run<T>(key: string, work: () => Promise<T>): Promise<T> {
    const deadline = Date.now() + this.maxWaitMs;
    let lease = await this.leases.tryAcquire(key, this.ttlMs);
    while (lease === null) {
      if (Date.now() > deadline) throw new LockWaitTimeoutError(key, this.maxWaitMs);
      await new Promise((r) => setTimeout(r, POLL_MS));
      lease = await this.leases.tryAcquire(key, this.ttlMs);
    }
    try {
      return await work();
    } finally {
      await lease.release();
    }
  }
}
