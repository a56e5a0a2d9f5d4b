import { Module, OnModuleInit } from '@nestjs/common';
import { ChainModule } from '../../chain/chain.module';
import { TAPE_POINTER_FEED_PROVIDER } from '../../chain/tape-pointer-feed';
import { HealthModule } from '../../health/health.module';
import { StorageConfig } from '../../config/storage.config';
import { HealthRegistry } from '../../health/health-registry';
import { SharedState } from '../../shared-state/shared-state';
import { SharedStateModule } from '../../shared-state/shared-state.module';
import { TracksModule } from '../tracks.module';
import { GcLease, LocalGcLease, RedisGcLease } from './gc-lease';
import { TrackGarbageCollector } from './track-gc.service';

/**
 * The track store's garbage collector (storage.gc). Part of the gateway (imported by the upload
 * module), not of the CLI: it runs where the store is written. Writers sharing a bucket and a
 * Redis (storage.shared) share its lease and cursor: one pass at a time over all of them.
 */
@Module({
  imports: [TracksModule, SharedStateModule, HealthModule, ChainModule],
  providers: [
    {
      provide: GcLease,
      inject: [StorageConfig, SharedState],
      useFactory: (storage: StorageConfig, shared: SharedState): GcLease =>
        shared.redis && storage.tracks.store === 's3'
          ? new RedisGcLease(shared.redis, shared.prefix, storage.shared.gc_lease_ms)
          : new LocalGcLease(),
    },
    TAPE_POINTER_FEED_PROVIDER,
    TrackGarbageCollector,
  ],
  exports: [TrackGarbageCollector],
})
export class TrackGcModule implements OnModuleInit {
  constructor(
    private readonly health: HealthRegistry,
    private readonly gc: TrackGarbageCollector,
  ) {}

  onModuleInit(): void {
    this.health.registerDetail('track_gc', () => this.gc.stats());
  }
}
