import { Module } from '@nestjs/common';
import { ClientIpModule } from '../http/client-ip.module';
import { AccessLog } from './access-log';
import { MetricsModule } from './metrics.module';
import { RequestObserver } from './request-observer';

/** Metrics registry and the access log, shared by every listener of the app. */
@Module({
  imports: [MetricsModule, ClientIpModule],
  providers: [AccessLog, RequestObserver],
  exports: [MetricsModule, AccessLog, RequestObserver],
})
export class ObservabilityModule {}
