import { Module, OnModuleInit } from '@nestjs/common';
import { ChainModule } from '../chain/chain.module';
import { HealthModule } from '../health/health.module';
import { GatewayIdentity } from '../chain/gateway-identity';
import { HealthRegistry } from '../health/health-registry';
import { KeyBalanceModule } from '../chain/key-balance/key-balance.module';
import { MeteringModule } from '../metering/metering.module';
import { GatewayMetrics } from '../observability/gateway-metrics';
import { ObservabilityModule } from '../observability/observability.module';
import { TrackGcModule } from '../tracks/gc/track-gc.module';
import { TracksModule } from '../tracks/tracks.module';
import { UploadController } from './upload.controller';
import { UploadSlots } from './upload-slots';
import { registerUploadMetrics } from './upload-metrics';
import { TrackStore } from '../tracks/track-store';
import { StoreVersionHoldings } from '../versions/store-version-holdings';
import { VersionCertifier } from '../versions/version-certifier';
import { SiteConfig } from '../config/site.config';
import { PublishController } from './publish.controller';
import { KeptVersionReferences } from './kept-version-references';
import { CertificationGate } from './certification-gate';
import { CertifiedVersions } from './certified-versions';
import { PublishService } from './publish.service';
import { TapeWriterAccess } from './tape-writer-access';
import { VersionBaseTracks } from './version-base-tracks';
import { VersionDownloadController } from './version-download.controller';
import { VersionDownloadService } from './version-download.service';
import { VersionUploadController } from './version-upload.controller';
import { VersionUploadService } from './version-upload.service';

/**
 * The bytes and Publish of versions, and `GET /upload/config`: the write side of the data plane
 * (docs/uploads.md).
 */
@Module({
  imports: [
    TracksModule,
    TrackGcModule,
    MeteringModule,
    HealthModule,
    ChainModule,
    ObservabilityModule,
    KeyBalanceModule,
  ],
  controllers: [
    UploadController,
    VersionUploadController,
    PublishController,
    VersionDownloadController,
  ],
  providers: [
    UploadSlots,
    TapeWriterAccess,
    VersionUploadService,
    VersionDownloadService,
    PublishService,
    KeptVersionReferences,
    VersionBaseTracks,
    CertifiedVersions,
    { provide: CertificationGate, useFactory: () => new CertificationGate() },
    {
      provide: VersionCertifier,
      useFactory: (store: TrackStore, site: SiteConfig) =>
        new VersionCertifier(new StoreVersionHoldings(store), new Set(site.well_known_allow)),
      inject: [TrackStore, SiteConfig],
    },
  ],
  // The S3 endpoint's group commit publishes with the gateway's own keys (publishOwn).
  exports: [PublishService, VersionUploadService],
})
export class UploadModule implements OnModuleInit {
  constructor(
    private readonly health: HealthRegistry,
    private readonly identity: GatewayIdentity,
    private readonly metrics: GatewayMetrics,
    private readonly slots: UploadSlots,
  ) {}

  onModuleInit(): void {
    // A reader is healthy: it serves; /healthz says which role it has.
    this.health.registerDetail('role', () => this.identity.role);
    registerUploadMetrics(this.metrics.registry, () => this.slots.stats());
  }
}
