import { Logger, Module, OnModuleInit } from '@nestjs/common';
import { describeResolver } from '../config/resolver-address';
import { readResolvConf, siteResolvers } from '../config/site-checks';
import { SiteConfig } from '../config/site.config';
import { GatewayMetrics } from '../observability/gateway-metrics';
import { MetricsModule } from '../observability/metrics.module';
import { registerBindingMetrics } from './binding-metrics';
import { Clock, MonotonicClock } from './clock';
import { DnsTxtLookup } from './dns-txt-lookup';
import { HostRouter } from './host-router';
import { TxtBindingService } from './txt-binding.service';
import { TxtLookup } from './txt-lookup';

/**
 * Host -> where it goes (HostRouter): the gateway's own names, operator domains, subdomain
 * labels, DNSSEC TXT bindings. Imported by every listener that routes on a Host.
 */
@Module({
  imports: [MetricsModule],
  providers: [
    { provide: Clock, useClass: MonotonicClock },
    { provide: TxtLookup, useFactory: createTxtLookup, inject: [SiteConfig] },
    TxtBindingService,
    HostRouter,
  ],
  exports: [HostRouter, TxtBindingService, Clock],
})
export class DomainsModule implements OnModuleInit {
  constructor(
    private readonly metrics: GatewayMetrics,
    private readonly bindings: TxtBindingService,
  ) {}

  onModuleInit(): void {
    registerBindingMetrics(this.metrics.registry, this.bindings);
  }
}

function createTxtLookup(site: SiteConfig): TxtLookup {
  // Checked when the configuration was loaded (src/config/site-checks.ts).
  const resolvers = siteResolvers(site, readResolvConf());
  if (site.txt_domains) {
    new Logger('Domains').log({
      event: 'txt-domains-enabled',
      resolvers: resolvers.map(describeResolver),
      msg: 'customer domains bind with DNSSEC-validated _tape TXT records; these resolvers must validate',
    });
  }
  return new DnsTxtLookup({ resolvers, timeoutMs: site.dns_timeout_ms });
}
