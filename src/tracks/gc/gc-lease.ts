import type Redis from 'ioredis';
import { randomBytes } from 'node:crypto';

/** The right to run one collector pass, for as long as `held` says so. */
export interface GcLeaseHandle {
  /** False once the lease was lost (not renewed in time): the pass stops. */
  held(): boolean;
  release(): Promise<void>;
}

/**
 * Port: who may run a collector pass, and where the pass's cursor is kept. One gateway: always
 * this one, the cursor in memory. Replicas: a lease in the shared Redis, so one replica at a
 * time runs a pass, each pass continuing where the previous one stopped, on whichever replica.
 */
export abstract class GcLease {
  /** The lease for one pass, or null while another replica holds it. */
  abstract acquire(): Promise<GcLeaseHandle | null>;
  abstract cursor(): Promise<Buffer | undefined>;
  abstract saveCursor(cursor: Buffer | undefined): Promise<void>;
}

/** One gateway: no one to share with. */
export class LocalGcLease extends GcLease {
  private position: Buffer | undefined;

  async acquire(): Promise<GcLeaseHandle> {
    return { held: () => true, release: async () => undefined };
  }

  async cursor(): Promise<Buffer | undefined> {
    return this.position;
  }

  async saveCursor(cursor: Buffer | undefined): Promise<void> {
    this.position = cursor;
  }
}

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

/**
 * `<prefix>gc:lease` (SET NX PX `ttlMs`, value: a random token naming the holder), renewed every
 * third of its lifetime while a pass runs and deleted by its holder at the end; a holder that
 * dies leaves it to expire. A renewal that finds another token, or fails until the lease has
 * expired, counts as lost and the pass stops. The cursor is `<prefix>gc:cursor` (hex).
 */
export class RedisGcLease extends GcLease {
  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
    private readonly ttlMs: number,
  ) {
    super();
    redis.defineCommand('tapeLeaseRenew', { numberOfKeys: 1, lua: RENEW_SCRIPT });
    redis.defineCommand('tapeLeaseRelease', { numberOfKeys: 1, lua: RELEASE_SCRIPT });
  }

  async acquire(): Promise<GcLeaseHandle | null> {
    const token = randomBytes(12).toString('hex');
    const taken = await this.redis.set(this.leaseKey, token, 'PX', this.ttlMs, 'NX');
    if (taken !== 'OK') return null;
    let validUntil = Date.now() + this.ttlMs;
    let lost = false;
    const commands = this.redis as unknown as LeaseCommands;
    const renew = setInterval(
      () => {
        const asked = Date.now();
        commands.tapeLeaseRenew(this.leaseKey, token, String(this.ttlMs)).then(
          (renewed) => {
            if (renewed === 1) validUntil = asked + this.ttlMs;
            else lost = true;
          },
          () => undefined, // retried at the next tick; held() stops at validUntil
        );
      },
      Math.max(100, Math.floor(this.ttlMs / 3)),
    );
    renew.unref();
    return {
      // A margin before the expiry: clocks of two processes on one Redis differ a little.
      held: () => !lost && Date.now() < validUntil - Math.min(1000, this.ttlMs / 10),
      release: async () => {
        clearInterval(renew);
        lost = true;
        await commands.tapeLeaseRelease(this.leaseKey, token).catch(() => undefined);
      },
    };
  }

  async cursor(): Promise<Buffer | undefined> {
    const hex = await this.redis.get(`${this.prefix}gc:cursor`);
    return hex ? Buffer.from(hex, 'hex') : undefined;
  }

  async saveCursor(cursor: Buffer | undefined): Promise<void> {
    await this.redis.set(`${this.prefix}gc:cursor`, cursor ? cursor.toString('hex') : '');
  }

  private get leaseKey(): string {
    return `${this.prefix}gc:lease`;
  }
}
