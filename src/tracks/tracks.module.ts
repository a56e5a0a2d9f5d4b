import { Module, OnModuleInit } from '@nestjs/common';
import { resolve } from 'node:path';
import { StorageConfig } from '../config/storage.config';
import { HealthRegistry } from '../health/health-registry';
import { FileTrackStore } from './file-track-store';
import { ObjectReader } from './object-reader';
import { TrackStore } from './track-store';

/**
 * The data plane: the track store (embedded default: a content-addressed directory under
 * `<storage.data_dir>/tracks`) and the object reader over it. Another store is swapped in by
 * overriding the `TrackStore` provider.
 */
@Module({
  providers: [
    {
      provide: TrackStore,
      inject: [StorageConfig],
      useFactory: async (storage: StorageConfig): Promise<TrackStore> => {
        const store = new FileTrackStore(resolve(storage.data_dir, 'tracks'));
        await store.init();
        return store;
      },
    },
    {
      provide: ObjectReader,
      inject: [TrackStore],
      useFactory: (store: TrackStore) => new ObjectReader(store),
    },
  ],
  exports: [TrackStore, ObjectReader],
})
export class TracksModule implements OnModuleInit {
  constructor(
    private readonly health: HealthRegistry,
    private readonly store: TrackStore,
  ) {}

  onModuleInit(): void {
    this.health.register('track-store', () => this.store.checkHealth());
    // Corrupt tracks are reported, never a readiness failure: one bad blob is not a reason to
    // take the gateway out of a load balancer (docs/tracks.md).
    this.health.registerDetail('tracks', () => this.store.integrity());
  }
}
