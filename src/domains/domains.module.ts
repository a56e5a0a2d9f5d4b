import { Logger, Module, OnModuleInit } from '@nestjs/common';
import { readFileSync } from 'node:fs';
import { SiteConfig } from '../config/site.config';
import { GatewayMetrics } from '../observability/gateway-metrics';
import { MetricsModule } from '../observability/metrics.module';
import { registerBindingMetrics } from './binding-metrics';
import { Clock, MonotonicClock } from './clock';
import { DnsTxtLookup } from './dns-txt-lookup';
import { HostRouter } from './host-router';
import { configuredResolvers, describeResolver } from './resolver-address';
import { assertResolversTrusted } from './resolver-trust';
import { TxtBindingService } from './txt-binding.service';
import { TxtLookup } from './txt-lookup';

const RESOLV_CONF = '/etc/resolv.conf';

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
  const resolvers = configuredResolvers(site.dns_resolvers, readResolvConf());
  assertResolversTrusted(resolvers, {
    txtDomains: site.txt_domains,
    trusted: site.dns_resolvers_trusted,
    fromResolvConf: site.dns_resolvers.length === 0,
  });
  if (site.txt_domains) {
    new Logger('Domains').log({
      event: 'txt-domains-enabled',
      resolvers: resolvers.map(describeResolver),
      msg: 'customer domains bind with DNSSEC-validated _tape TXT records; these resolvers must validate',
    });
  }
  return new DnsTxtLookup({ resolvers, timeoutMs: site.dns_timeout_ms });
}

function readResolvConf(): string {
  try {
    return readFileSync(RESOLV_CONF, 'utf8');
  } catch {
    return '';
  }
}
