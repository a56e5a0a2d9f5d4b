import { Module } from '@nestjs/common';
import { ChainModule } from '../chain/chain.module';
import { DomainsModule } from '../domains/domains.module';
import { HealthModule } from '../health/health.module';
import { MeteringModule } from '../metering/metering.module';
import { TracksModule } from '../tracks/tracks.module';
import { AccessLog } from './access-log';
import { GatewayMetrics } from './gateway-metrics';
import { RequestObserver } from './request-observer';

/** Metrics registry and the access log, shared by every listener of the app. */
@Module({
  imports: [DomainsModule, TracksModule, MeteringModule, ChainModule, HealthModule],
  providers: [GatewayMetrics, AccessLog, RequestObserver],
  exports: [GatewayMetrics, AccessLog, RequestObserver],
})
export class ObservabilityModule {}
