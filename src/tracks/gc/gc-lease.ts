import type Redis from 'ioredis';
import { LeaseHandle, RedisLeases } from '../../shared-state/redis-lease';

/** The right to run one collector pass, for as long as `held` says so. */
export type GcLeaseHandle = LeaseHandle;

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

/**
 * `<prefix>gc:lease` (SET NX PX `ttlMs`, value: a random token naming the holder), renewed every
 * third of its lifetime while a pass runs and deleted by its holder at the end; a holder that
 * dies leaves it to expire. A renewal that finds another token, or fails until the lease has
 * expired, counts as lost and the pass stops. The cursor is `<prefix>gc:cursor` (hex).
 */
export class RedisGcLease extends GcLease {
  private readonly leases: RedisLeases;

  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
    private readonly ttlMs: number,
  ) {
    super();
    this.leases = new RedisLeases(redis);
  }

  async acquire(): Promise<GcLeaseHandle | null> {
    return this.leases.tryAcquire(this.leaseKey, this.ttlMs);
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
