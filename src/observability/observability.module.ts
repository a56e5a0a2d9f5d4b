import { Module, OnModuleInit } from '@nestjs/common';
import { ClientIpModule } from '../http/client-ip.module';
import { MainListener, MainListenerModule } from '../http/main-listener';
import { AccessLog } from './access-log';
import { MetricsModule } from './metrics.module';
import { RequestObserver } from './request-observer';
import { MainRouteKinds } from './route-kind';

/**
 * Metrics registry and the access log, shared by every listener of the app. The request
 * observer registers with the main listener (src/http/main-listener.ts), which wraps its
 * dispatch with it: every answer counted and logged by route kind.
 */
@Module({
  imports: [MetricsModule, ClientIpModule, MainListenerModule],
  providers: [AccessLog, RequestObserver],
  exports: [MetricsModule, AccessLog, RequestObserver],
})
export class ObservabilityModule implements OnModuleInit {
  constructor(
    private readonly listener: MainListener,
    private readonly observer: RequestObserver,
  ) {}

  onModuleInit(): void {
    const kinds = new MainRouteKinds(this.listener);
    this.listener.observeWith((dispatch) =>
      this.observer.wrap('main', dispatch, (req) => kinds.of(req)),
    );
  }
}
