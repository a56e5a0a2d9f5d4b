import { Keypair } from '@solana/web3.js';
import { join } from 'node:path';
import { ChainConfig } from '../config/chain.config';
import { StorageConfig } from '../config/storage.config';
import { readOrCreateKeypair } from './keypair-file';

/**
 * The gateway's own key: the storage authority that certifies tracks it holds, and the
 * delegate that signs writes for tapes delegated to it (S3 sync). Stored as a Solana CLI
 * keypair file, created on first start.
 */
export class GatewayIdentity {
  constructor(readonly keypair: Keypair) {}

  get publicKey() {
    return this.keypair.publicKey;
  }

  static keypairPath(chain: ChainConfig, storage: StorageConfig): string {
    return chain.gateway_keypair ?? join(storage.data_dir, 'gateway-key.json');
  }

  static load(chain: ChainConfig, storage: StorageConfig): GatewayIdentity {
    return new GatewayIdentity(readOrCreateKeypair(GatewayIdentity.keypairPath(chain, storage)));
  }
}
