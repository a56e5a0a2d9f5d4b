import { ConfigError } from './config-error';
import { GatewayRole } from './gateway-role';
import { StorageConfig } from './storage.config';

/**
 * The checks of `storage.tracks.*` that span several keys, run when the configuration is
 * validated (config-loader.ts): the backend the keys name must be one that can be built.
 */
export function checkTrackStoreConfig(storage: StorageConfig): void {
  const tracks = storage.tracks;
  if (tracks.peers.length > 0 && tracks.store === 's3') {
    throw new ConfigError(
      'config error: storage.tracks.peers: a gateway reads from peers or from a store, not both (storage.tracks.store is s3)',
    );
  }
  if (tracks.store === 's3' && !tracks.s3.endpoint) {
    throw new ConfigError(
      'config error: storage.tracks.s3.endpoint is required when storage.tracks.store is s3',
    );
  }
}

/** Peers serve readers only: a writer needs a store it can write (docs/peers.md). */
export function checkTrackStoreRole(storage: StorageConfig, role: GatewayRole): void {
  if (storage.tracks.peers.length > 0 && role === 'writer') {
    throw new ConfigError(
      'config error: storage.tracks.peers: only a reader reads from peers (a writer needs a store it can write: set chain.rpc_url and give no gateway key)',
    );
  }
}
