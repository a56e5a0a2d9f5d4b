import { Module } from '@nestjs/common';
import { ObservabilityModule } from '../observability/observability.module';
import { DomainsModule } from '../domains/domains.module';
import { AdminServer } from './admin-server';
import { TlsAsk } from './tls-ask';

/** The operator listener: metrics, liveness, the TLS ask endpoint (main.ts starts it). */
@Module({
  imports: [DomainsModule, ObservabilityModule],
  providers: [TlsAsk, AdminServer],
  exports: [AdminServer],
})
export class AdminModule {}
