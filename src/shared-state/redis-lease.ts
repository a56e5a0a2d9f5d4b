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

interface LeaseCommands {
  tapeLeaseRenew(key: string, token: string, ttl: string): Promise<number>;
  tapeLeaseRelease(key: string, token: string): Promise<number>;
}

/** A lease taken: held until released, lost, or not renewed in time. */
export interface LeaseHandle {
  /** False once the lease was lost (another token found, or not renewed before it expired). */
  held(): boolean;
  release(): Promise<void>;
}

/**
 * The one lease primitive over the replicas' shared Redis: SET NX PX `ttlMs` with a random token
 * naming the holder, renewed every third of its lifetime, deleted by its holder at the end (a
 * holder that dies leaves it to expire). Renewal and release only touch the key while it still
 * holds the holder's token (Lua). Used by the collector's lease and by RedisMutex.
 */
export class RedisLeases {
  constructor(private readonly redis: Redis) {
    redis.defineCommand('tapeLeaseRenew', { numberOfKeys: 1, lua: RENEW_SCRIPT });
    redis.defineCommand('tapeLeaseRelease', { numberOfKeys: 1, lua: RELEASE_SCRIPT });
  }

  /** The lease on `key`, or null while someone else holds it. */
  async tryAcquire(key: string, ttlMs: number): Promise<LeaseHandle | null> {
    const token = randomBytes(12).toString('hex');
    if ((await this.redis.set(key, token, 'PX', ttlMs, 'NX')) !== 'OK') return null;
    let validUntil = Date.now() + ttlMs;
    let lost = false;
    const commands = this.redis as unknown as LeaseCommands;
    const renew = setInterval(
      () => {
        const asked = Date.now();
        commands.tapeLeaseRenew(key, token, String(ttlMs)).then(
          (renewed) => {
            if (renewed === 1) validUntil = asked + ttlMs;
            else lost = true;
          },
          () => undefined, // retried at the next tick; held() stops at validUntil
        );
      },
      Math.max(100, Math.floor(ttlMs / 3)),
    );
    renew.unref();
    return {
      // A margin before the expiry: clocks of two processes on one Redis differ a little.
      held: () => !lost && Date.now() < validUntil - Math.min(1000, ttlMs / 10),
      release: async () => {
        clearInterval(renew);
        lost = true;
        await commands.tapeLeaseRelease(key, token).catch(() => undefined);
      },
    };
  }
}
