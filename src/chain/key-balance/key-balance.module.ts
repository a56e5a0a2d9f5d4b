import { Module, OnApplicationBootstrap, OnModuleDestroy, OnModuleInit } from '@nestjs/common';
import { ChainModule } from '../chain.module';
import { ChainRpc } from '../chain-rpc';
import { GatewayIdentity } from '../gateway-identity';
import { ChainConfig } from '../../config/chain.config';
import { KeyBalanceConfig } from '../../config/key-balance.config';
import { HealthModule } from '../../health/health.module';
import { HealthRegistry } from '../../health/health-registry';
import { GatewayMetrics } from '../../observability/gateway-metrics';
import { ObservabilityModule } from '../../observability/observability.module';
import { BalanceSource, ChainBalanceSource } from './balance-source';
import { KeyBalance } from './key-balance';
import { registerKeyBalanceMetrics } from './key-balance-metrics';
import { keyBalanceLimits } from './key-balance-limits';

/** Longest start-up wait for the first reading (a chain that does not answer only delays). */
const FIRST_READ_MS = 2000;

/**
 * The writer's key balance (docs/operator.md, "The key's balance"): /healthz's `key-balance`
 * warning, the balance metric, a warning at start-up, and the check uploads and S3 writes make
 * before they start.
 */
@Module({
  imports: [ChainModule, HealthModule, ObservabilityModule],
  providers: [
    {
      provide: BalanceSource,
      useFactory: (rpc: ChainRpc) => new ChainBalanceSource(rpc),
      inject: [ChainRpc],
    },
    {
      provide: KeyBalance,
      useFactory: (
        source: BalanceSource,
        identity: GatewayIdentity,
        config: KeyBalanceConfig,
        chain: ChainConfig,
      ) => new KeyBalance(source, identity, keyBalanceLimits(config, chain)),
      inject: [BalanceSource, GatewayIdentity, KeyBalanceConfig, ChainConfig],
    },
  ],
  exports: [KeyBalance],
})
export class KeyBalanceModule implements OnModuleInit, OnApplicationBootstrap, OnModuleDestroy {
  constructor(
    private readonly balance: KeyBalance,
    private readonly health: HealthRegistry,
    private readonly metrics: GatewayMetrics,
  ) {}

  onModuleInit(): void {
    // A reader pays for nothing: no warning, no metric.
    if (!this.balance.applies) return;
    this.health.registerWarning('key-balance', () => this.balance.degradedReason());
    registerKeyBalanceMetrics(this.metrics.registry, async () => ({
      lamports: await this.balance.current(),
      thresholdLamports: this.balance.limits.thresholdLamports,
    }));
  }

  /** The first reading logs a warning when the key is short, before the gateway listens. */
  async onApplicationBootstrap(): Promise<void> {
    if (!this.balance.applies) return;
    const timeout = new Promise<void>((resolve) => setTimeout(resolve, FIRST_READ_MS).unref());
    await Promise.race([this.balance.refresh(), timeout]);
    this.balance.start();
  }

  onModuleDestroy(): void {
    this.balance.stop();
  }
}
