import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { ChainConfig } from './chain.config';
import { StorageConfig } from './storage.config';

/**
 * `writer`: holds the storage-authority key, accepts uploads and certifies. `reader`: holds no
 * key and serves what the shared track store holds (docs/operator.md, "Scaling out").
 */
export type GatewayRole = 'writer' | 'reader';

/** The gateway's keypair file: `chain.gateway_keypair`, else `<data_dir>/gateway-key.json`. */
export function gatewayKeypairPath(chain: ChainConfig, storage: StorageConfig): string {
  return chain.gateway_keypair ?? join(storage.data_dir, 'gateway-key.json');
}

/**
 * What the configuration makes the gateway: a writer with the embedded local network (no
 * `chain.rpc_url`), with a keypair named explicitly or one in the data directory; a reader
 * against an external RPC with no keypair file.
 */
export function gatewayRole(chain: ChainConfig, storage: StorageConfig): GatewayRole {
  if (!chain.rpc_url || chain.gateway_keypair !== undefined) return 'writer';
  return existsSync(gatewayKeypairPath(chain, storage)) ? 'writer' : 'reader';
}
