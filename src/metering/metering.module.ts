import { Global, Logger, Module, OnModuleInit, Optional } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import { getOptionsToken, getStorageToken, ThrottlerModuleOptions } from '@nestjs/throttler';
import { MeteringConfig } from '../config/metering.config';
import { HealthRegistry } from '../health/health-registry';
import { FailOpenMeterStore } from './fail-open-meter-store';
import { MemoryMeterStore } from './memory-meter-store';
import { MeterStore } from './meter-store';
import { budgetsFrom, throttlersFrom } from './metering-budgets';
import { MeteringGuard } from './metering.guard';
import { MeteringService } from './metering.service';
import { RedisMeterStore } from './redis-meter-store';

/** How long start-up waits for Redis before serving unmetered until it comes. */
const REDIS_STARTUP_WAIT_MS = 3000;

/** Memory by default; Redis (failing open) when `redis_url` is set. */
async function createMeterStore(config: MeteringConfig): Promise<MeterStore> {
  if (!config.redis_url) return new MemoryMeterStore();
  const logger = new Logger('metering');
  let lastConnectionWarning = -Infinity;
  const redis = new RedisMeterStore({
    url: config.redis_url,
    keyPrefix: config.redis_key_prefix,
    commandTimeoutMs: config.redis_timeout_ms,
    syncMs: config.redis_sync_ms,
    onConnectionError: (err) => {
      // ioredis reports every failed reconnect; one line a minute is enough.
      if (Date.now() - lastConnectionWarning < 60_000) return;
      lastConnectionWarning = Date.now();
      logger.warn(`redis connection: ${err.message}; reconnecting, metering fails open meanwhile`);
    },
  });
  if (!(await redis.waitUntilReady(REDIS_STARTUP_WAIT_MS))) {
    logger.warn(`redis not reachable at start-up; serving unmetered until it is`);
  }
  return new FailOpenMeterStore(redis, logger);
}

/**
 * Per-client metering. Importing this module installs the global guard (APP_GUARD): routes
 * decorated with `@Metered(budget)` are counted, others pass. `MeteringService` is exported
 * for the object route's byte budget and for listeners outside Nest's router (S3).
 *
 * Global (like ConfigModule): the app root imports it once, and the object route or the S3
 * listener inject MeteringService without importing a feature module.
 *
 * The throttler's own providers (its options and its storage token) are given here rather than
 * by importing ThrottlerModule, whose providers are global: the store is ours either way.
 */
@Global()
@Module({
  providers: [
    { provide: MeterStore, useFactory: createMeterStore, inject: [MeteringConfig] },
    {
      provide: getOptionsToken(),
      useFactory: (config: MeteringConfig): ThrottlerModuleOptions => ({
        throttlers: throttlersFrom(budgetsFrom(config)),
      }),
      inject: [MeteringConfig],
    },
    { provide: getStorageToken(), useExisting: MeterStore },
    MeteringService,
    { provide: APP_GUARD, useClass: MeteringGuard },
  ],
  exports: [MeteringService],
})
export class MeteringModule implements OnModuleInit {
  constructor(
    private readonly metering: MeteringService,
    @Optional() private readonly health?: HealthRegistry,
  ) {}

  /** /healthz shows the store's state and counts (a Redis outage fails open, not the gateway). */
  onModuleInit(): void {
    this.health?.registerDetail('metering', () => this.metering.stats());
  }
}
