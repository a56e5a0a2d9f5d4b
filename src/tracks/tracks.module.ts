import { Inject, Module, OnModuleInit } from '@nestjs/common';
import { GatewayIdentityModule } from '../chain/gateway-identity.module';
import { HealthModule } from '../health/health.module';
import { resolve } from 'node:path';
import { GatewayIdentity } from '../chain/gateway-identity';
import { GatewayRole } from '../config/gateway-role';
import { checkTrackStoreRole } from '../config/storage-checks';
import { StorageConfig } from '../config/storage.config';
import { HealthRegistry } from '../health/health-registry';
import { GatewayMetrics } from '../observability/gateway-metrics';
import { MetricsModule } from '../observability/metrics.module';
import { SharedState } from '../shared-state/shared-state';
import { SharedStateModule } from '../shared-state/shared-state.module';
import { FileTrackStore } from './file-track-store';
import { ObjectReader } from './object-reader';
import { PeerTrackStore } from './peers/peer-track-store';
import { RedisTrackReferences } from './redis-track-references';
import { S3TrackStore } from './s3/s3-track-store';
import { TrackCache } from './s3/track-cache';
import { TrackStore } from './track-store';
import { registerTrackStoreMetrics } from './track-store-metrics';

/**
 * The track store `storage.tracks.store` names: `file` (default), a content-addressed
 * directory under `<storage.data_dir>/tracks`; `s3`, a bucket shared by a writer and its
 * readers, behind a verified local cache under `<storage.data_dir>/track-cache`
 * (docs/tracks.md). Both keep the writer's reference index in
 * `<storage.data_dir>/tracks.references.sqlite`; with `storage.shared.redis_url`, the S3 store
 * keeps every writer's references in the shared Redis instead (several writers on one bucket).
 * The keys were checked when the configuration was loaded (src/config/storage-checks.ts).
 */
export async function createTrackStore(
  storage: StorageConfig,
  shared?: SharedState,
  role: GatewayRole = 'writer',
): Promise<TrackStore> {
  const tracks = storage.tracks;
  if (tracks.peers.length > 0) return createPeerTrackStore(storage, role);
  if (tracks.store === 's3') {
    const store = new S3TrackStore({
      s3: tracks.s3,
      cache: new TrackCache(resolve(storage.data_dir, 'track-cache'), tracks.cache.max_bytes),
      indexPath: resolve(storage.data_dir, 'tracks.references.sqlite'),
      verifyCacheReads: tracks.cache.verify_reads,
      ...(shared?.redis && {
        references: new RedisTrackReferences(shared.redis, shared.prefix),
      }),
    });
    // A reader never writes to the store, not even to create the bucket: its credentials may
    // be read-only (or none, a public-read bucket), and the bucket is the writer's to make.
    await store.init({ createBucket: tracks.s3.create_bucket && role === 'writer' });
    return store;
  }
  const store = new FileTrackStore(resolve(storage.data_dir, 'tracks'));
  await store.init();
  return store;
}

/**
 * A reader with no store: track bytes from `storage.tracks.peers`, verified, cached under
 * `<storage.data_dir>/track-cache` (docs/peers.md). A writer needs a store it can write.
 */
async function createPeerTrackStore(
  storage: StorageConfig,
  role: GatewayRole,
): Promise<PeerTrackStore> {
  const tracks = storage.tracks;
  checkTrackStoreRole(storage, role);
  const store = new PeerTrackStore({
    peers: tracks.peers,
    timeoutMs: tracks.peer.request_timeout_ms,
    retryAfterMs: tracks.peer.retry_after_ms,
    cache: new TrackCache(resolve(storage.data_dir, 'track-cache'), tracks.cache.max_bytes),
  });
  await store.init();
  return store;
}

/**
 * The configured backend itself, before any wrapper: `TrackStore` is this unless overridden
 * (a metrics wrapper injects this token and wraps it). /healthz reads the backend's details here.
 */
export const TRACK_STORE_BACKEND = Symbol('TrackStoreBackend');

/**
 * The data plane: the track store (createTrackStore) and the object reader over it. Another
 * store is swapped in (or wrapped) by overriding the `TrackStore` provider.
 */
@Module({
  imports: [SharedStateModule, HealthModule, MetricsModule, GatewayIdentityModule],
  providers: [
    {
      provide: TRACK_STORE_BACKEND,
      // Optional: the CLI builds the store without the gateway's identity (a writer's view).
      inject: [StorageConfig, SharedState, { token: GatewayIdentity, optional: true }],
      useFactory: (
        storage: StorageConfig,
        shared: SharedState,
        identity?: GatewayIdentity,
      ): Promise<TrackStore> => createTrackStore(storage, shared, identity?.role),
    },
    {
      provide: TrackStore,
      inject: [TRACK_STORE_BACKEND],
      useFactory: (backend: TrackStore): TrackStore => backend,
    },
    {
      provide: ObjectReader,
      inject: [TrackStore],
      useFactory: (store: TrackStore) => new ObjectReader(store),
    },
  ],
  exports: [TrackStore, ObjectReader, TRACK_STORE_BACKEND],
})
export class TracksModule implements OnModuleInit {
  constructor(
    private readonly health: HealthRegistry,
    private readonly metrics: GatewayMetrics,
    private readonly store: TrackStore,
    @Inject(TRACK_STORE_BACKEND) private readonly backend: TrackStore,
  ) {}

  onModuleInit(): void {
    this.health.register('track-store', () => this.store.checkHealth());
    registerTrackStoreMetrics(this.metrics.registry, this.store);
    // Corrupt tracks are reported, never a readiness failure: one bad blob is not a reason to
    // take the gateway out of a load balancer (docs/tracks.md).
    this.health.registerDetail('tracks', () => ({
      backend: backendName(this.backend),
      ...this.store.integrity(),
      ...((this.backend instanceof S3TrackStore || this.backend instanceof PeerTrackStore) && {
        cache: this.backend.cacheReport(),
      }),
    }));
  }
}

function backendName(store: TrackStore): string {
  if (store instanceof S3TrackStore) return 's3';
  if (store instanceof PeerTrackStore) return 'peers';
  return 'file';
}
