import { Injectable, Logger, OnModuleDestroy } from '@nestjs/common';
import type Redis from 'ioredis';
import { StorageConfig } from '../config/storage.config';
import { connectSharedRedis } from './shared-redis';

/**
 * The state replicas share (docs/operator.md, "Scaling out"): present when
 * `storage.shared.redis_url` is set, one connection per process; absent, every replica keeps
 * its state in its own data directory (one gateway).
 */
@Injectable()
export class SharedState implements OnModuleDestroy {
  readonly redis: Redis | undefined;
  readonly prefix: string;
  private readonly logger = new Logger('shared-state');
  private lastWarning = -Infinity;

  constructor(storage: StorageConfig) {
    this.prefix = storage.shared.key_prefix;
    if (!storage.shared.redis_url) return;
    this.redis = connectSharedRedis(storage.shared, 'tape-gateway-shared');
    this.redis.on('error', (err: Error) => {
      // ioredis reports every failed reconnect; one line a minute is enough.
      if (Date.now() - this.lastWarning < 60_000) return;
      this.lastWarning = Date.now();
      this.logger.warn({ msg: 'shared redis unavailable', error: err.message });
    });
  }

  get enabled(): boolean {
    return this.redis !== undefined;
  }

  /** Rejects with a short reason when Redis does not answer (for /healthz). */
  async checkHealth(): Promise<void> {
    if (!this.redis) return;
    // Not connected: say so at once (a PING would wait for the reconnect until it times out).
    if (this.redis.status !== 'ready') {
      throw new Error(`shared redis unreachable (${this.redis.status})`);
    }
    try {
      await this.redis.ping();
    } catch (err) {
      throw new Error(`shared redis unreachable (${(err as Error).message})`);
    }
  }

  onModuleDestroy(): void {
    this.redis?.disconnect();
  }
}
