import { Logger, Module, OnModuleInit, Optional } from '@nestjs/common';
import { HealthModule } from '../health/health.module';
import { ClientIpModule } from '../http/client-ip.module';
import { getOptionsToken, getStorageToken, ThrottlerModuleOptions } from '@nestjs/throttler';
import { MeteringConfig } from '../config/metering.config';
import { HealthRegistry } from '../health/health-registry';
import { GatewayMetrics } from '../observability/gateway-metrics';
import { MetricsModule } from '../observability/metrics.module';
import { FailOpenMeterStore } from './fail-open-meter-store';
import { MemoryMeterStore } from './memory-meter-store';
import { MeterStore } from './meter-store';
import { budgetsFrom, throttlersFrom } from './metering-budgets';
import { MeteringGate } from './metering-gate';
import { MeteringGuard } from './metering.guard';
import { MeteringService } from './metering.service';
import { registerMeteringMetrics } from './metering-metrics';
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
 * Per-client metering: the gate (MeteringGate) every metered request of every listener passes,
 * and the guard that `@Metered(budget)` installs on a route. Not global and no APP_GUARD: each
 * feature module that meters imports it (object, upload, site, S3); Nest builds it once. Its
 * figures go to /metrics through the registry (MetricsModule) and to /healthz.
 *
 * The throttler's own providers (its options and its storage token) are given here rather than
 * by importing ThrottlerModule, whose providers are global: the store is ours either way. They
 * are exported because the guard is instantiated in the module of each metered controller.
 */
@Module({
  imports: [HealthModule, MetricsModule, ClientIpModule],
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
    MeteringGate,
    MeteringGuard,
  ],
  exports: [MeteringService, MeteringGate, MeteringGuard, getOptionsToken(), getStorageToken()],
})
export class MeteringModule implements OnModuleInit {
  constructor(
    private readonly metering: MeteringService,
    private readonly metrics: GatewayMetrics,
    @Optional() private readonly health?: HealthRegistry,
  ) {}

  /** /healthz shows the store's state and counts (a Redis outage fails open, not the gateway). */
  onModuleInit(): void {
    this.health?.registerDetail('metering', () => this.metering.stats());
    registerMeteringMetrics(this.metrics.registry, this.metering);
  }
}
