import { createHash } from 'node:crypto';
import { RedisMutex } from '../../shared-state/redis-mutex';
import { NameLocks } from './name-locks';

/**
 * Port: the write locks of object names (ObjectPublisher takes them around each chain write of
 * a name, and conditional writes check under them). In this process for one gateway; over every
 * writer when they share a Redis, so two writers never interleave writes of one name (the second
 * would be refused by the program with `account mismatch`, and an `If-None-Match: *` checked on
 * both would let both through).
 */
export abstract class ObjectWriteLocks {
  /** Runs `work` once it holds every key's lock (taken in a fixed order: no deadlock). */
  abstract run<T>(keys: string[], work: () => Promise<T>): Promise<T>;
}

export class LocalObjectWriteLocks extends ObjectWriteLocks {
  private readonly names = new NameLocks();

  run<T>(keys: string[], work: () => Promise<T>): Promise<T> {
    return this.names.run(keys, work);
  }
}

/** In-process first (no Redis round trips between this process's own writers), then Redis. */
export class SharedObjectWriteLocks extends ObjectWriteLocks {
  private readonly names = new NameLocks();

  constructor(
    private readonly mutex: RedisMutex,
    private readonly prefix: string,
  ) {
    super();
  }

  run<T>(keys: string[], work: () => Promise<T>): Promise<T> {
    const ordered = [...new Set(keys)].sort();
    return this.names.run(ordered, () => this.nested(ordered, 0, work));
  }

  private nested<T>(keys: string[], index: number, work: () => Promise<T>): Promise<T> {
    if (index === keys.length) return work();
    // Names are up to 1 KiB: the Redis key holds their hash.
    const id = createHash('sha256').update(keys[index]).digest('hex');
    return this.mutex.run(`${this.prefix}name-lock:${id}`, () =>
      this.nested(keys, index + 1, work),
    );
  }
}
