import { Logger, Module } from '@nestjs/common';
import { ChainModule } from '../chain/chain.module';
import { TAPE_POINTER_FEED_PROVIDER, TapePointerFeed } from '../chain/tape-pointer-feed';
import { gatewayOrigins } from '../config/site-checks';
import { SiteConfig } from '../config/site.config';
import { DomainsModule } from '../domains/domains.module';
import { MainListenerModule } from '../http/main-listener';
import { MeteringModule } from '../metering/metering.module';
import { ObjectReader } from '../tracks/object-reader';
import { TracksModule } from '../tracks/tracks.module';
import { VersionsModule } from '../versions/versions.module';
import { ChainSiteSource } from './chain-site-source';
import { pathSandboxPolicy } from './path-isolation';
import { SiteBodyCache } from './site-body-cache';
import { SiteDirectory } from './site-directory';
import { SiteFreshness } from './site-freshness';
import { SiteResponder } from './site-responder';
import { SiteEdge } from './site-edge';
import { SiteSource } from './site-source';
import { SiteService } from './site.service';

/**
 * Site serving: `/site/{tape}/…` and hostname routes, `_site.json`, caching and security
 * headers. SiteEdge registers with the main listener (src/http/main-listener.ts) to take site
 * requests before Fastify; SiteService returns their answers. Imports the chain, the data plane, the
 * host router and metering.
 */
@Module({
  imports: [
    TracksModule,
    VersionsModule,
    DomainsModule,
    MeteringModule,
    ChainModule,
    MainListenerModule,
  ],
  providers: [
    { provide: SiteSource, useClass: ChainSiteSource },
    { provide: SiteDirectory, useFactory: createSiteDirectory, inject: [SiteSource, SiteConfig] },
    TAPE_POINTER_FEED_PROVIDER,
    {
      provide: SiteFreshness,
      inject: [TapePointerFeed, SiteDirectory, SiteSource, SiteConfig],
      useFactory: (
        feed: TapePointerFeed,
        directory: SiteDirectory,
        source: SiteSource,
        site: SiteConfig,
      ) => new SiteFreshness(feed, directory, source, { pollMs: site.pointer_poll_ms }),
    },
    {
      provide: SiteBodyCache,
      useFactory: (reader: ObjectReader, site: SiteConfig) =>
        new SiteBodyCache(reader, site.cache_bytes, site.cache_object_max_bytes),
      inject: [ObjectReader, SiteConfig],
    },
    {
      provide: SiteResponder,
      useFactory: (reader: ObjectReader, bodies: SiteBodyCache) =>
        new SiteResponder(reader, bodies),
      inject: [ObjectReader, SiteBodyCache],
    },
    SiteService,
    SiteEdge,
  ],
})
export class SiteModule {}

function createSiteDirectory(source: SiteSource, site: SiteConfig): SiteDirectory {
  const logger = new Logger('site');
  return new SiteDirectory(source, {
    defaults: {
      spaFallback: site.spa_fallback,
      maxAgeSecs: site.max_age_secs,
      corsOrigins: gatewayOrigins(site, 'cors_origins'),
      connectOrigins: gatewayOrigins(site, 'connect_origins'),
      pathSandbox: pathSandboxPolicy(site.path_sandbox_allow),
    },
    tenantOverrides: site.tenant_overrides,
    allowAnyOrigin: site.tenant_wildcard_origins,
    nameCacheSecs: site.name_cache_secs,
    wellKnownAllow: new Set(site.well_known_allow),
    now: () => performance.now(),
    warn: (message) => logger.warn(message),
  });
}
