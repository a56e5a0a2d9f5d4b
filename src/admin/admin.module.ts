import { Module, OnModuleInit } from '@nestjs/common';
import { ChainModule } from '../chain/chain.module';
import { DomainsModule } from '../domains/domains.module';
import { GatewayMetrics } from '../observability/gateway-metrics';
import { ObservabilityModule } from '../observability/observability.module';
import { AdminServer } from './admin-server';
import { ChainTapeLiveness, TapeLiveness } from './tape-liveness';
import { TlsAsk } from './tls-ask';
import { registerTlsAskMetrics } from './tls-ask-metrics';

/** The operator listener: metrics, liveness, the TLS ask endpoint (main.ts starts it). */
@Module({
  imports: [DomainsModule, ObservabilityModule, ChainModule],
  providers: [{ provide: TapeLiveness, useClass: ChainTapeLiveness }, TlsAsk, AdminServer],
  exports: [AdminServer],
})
export class AdminModule implements OnModuleInit {
  constructor(
    private readonly metrics: GatewayMetrics,
    private readonly ask: TlsAsk,
  ) {}

  onModuleInit(): void {
    registerTlsAskMetrics(this.metrics.registry, () => this.ask.stats());
  }
}
