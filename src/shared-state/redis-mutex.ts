import type Redis from 'ioredis';
import { randomBytes } from 'node:crypto';

const RENEW_SCRIPT = `
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('PEXPIRE', KEYS[1], ARGV[2]) end
return 0
`;
const RELEASE_SCRIPT = `
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
`;

interface MutexCommands {
  tapeMutexRenew(key: string, token: string, ttl: string): Promise<number>;
  tapeMutexRelease(key: string, token: string): Promise<number>;
}

const POLL_MS = 100;

/**
 * A lock over all replicas: SET NX PX `ttlMs` with a random token, renewed every third of its
 * lifetime while the work runs, deleted by its holder at the end (a holder that dies leaves it
 * to expire). Waiters poll; one that waits longer than `maxWaitMs` fails.
 */
export class RedisMutex {
  constructor(
    private readonly redis: Redis,
    private readonly ttlMs = 30_000,
    private readonly maxWaitMs = 10 * 60 * 1000,
  ) {
    redis.defineCommand('tapeMutexRenew', { numberOfKeys: 1, lua: RENEW_SCRIPT });
    redis.defineCommand('tapeMutexRelease', { numberOfKeys: 1, lua: RELEASE_SCRIPT });
  }

  async run<T>(key: string, work: () => Promise<T>): Promise<T> {
    const token = randomBytes(12).toString('hex');
    const deadline = Date.now() + this.maxWaitMs;
    while ((await this.redis.set(key, token, 'PX', this.ttlMs, 'NX')) !== 'OK') {
      if (Date.now() > deadline) throw new Error(`${key} stayed locked for ${this.maxWaitMs} ms`);
      await new Promise((r) => setTimeout(r, POLL_MS));
    }
    const commands = this.redis as unknown as MutexCommands;
    const renew = setInterval(
      () => void commands.tapeMutexRenew(key, token, String(this.ttlMs)).catch(() => undefined),
      Math.max(100, Math.floor(this.ttlMs / 3)),
    );
    renew.unref();
    try {
      return await work();
    } finally {
      clearInterval(renew);
      await commands.tapeMutexRelease(key, token).catch(() => undefined);
    }
  }
}
