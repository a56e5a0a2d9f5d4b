import { Keypair } from '@solana/web3.js';
import { ChainConfig } from '../config/chain.config';
import { GatewayRole, gatewayKeypairPath, gatewayRole } from '../config/gateway-role';
import { StorageConfig } from '../config/storage.config';
import { readKeypair, readOrCreateKeypair } from './keypair-file';

export type { GatewayRole };

/**
 * The gateway's own key: the storage authority that certifies tracks it holds, and the
 * delegate that signs writes for tapes delegated to it (S3 sync). A Solana CLI keypair file:
 * `chain.gateway_keypair`, else `<data_dir>/gateway-key.json`.
 *
 * It is generated only for the embedded local network (no `chain.rpc_url`), whose genesis names
 * it the storage authority. Against an external RPC a key is never made up: with no keypair
 * file the gateway is a reader; its `keypair` is then a throwaway in memory that signs nothing
 * (uploads and S3 writes answer 503 "this gateway is a reader").
 */
export class GatewayIdentity {
  constructor(
    readonly keypair: Keypair,
    readonly role: GatewayRole = 'writer',
  ) {}

  get publicKey() {
    return this.keypair.publicKey;
  }

  get isWriter(): boolean {
    return this.role === 'writer';
  }

  static keypairPath(chain: ChainConfig, storage: StorageConfig): string {
    return gatewayKeypairPath(chain, storage);
  }

  static load(chain: ChainConfig, storage: StorageConfig): GatewayIdentity {
    const path = gatewayKeypairPath(chain, storage);
    // The embedded local network: the key its genesis names (created on first start).
    if (!chain.rpc_url) return new GatewayIdentity(readOrCreateKeypair(path), 'writer');
    // Named explicitly, it must exist (a typo must not turn a writer into a reader).
    if (gatewayRole(chain, storage) === 'writer')
      return new GatewayIdentity(readKeypair(path), 'writer');
    return new GatewayIdentity(Keypair.generate(), 'reader');
  }

  /** `tape gateway key`: an operator asking for the key creates it (an explicit act). */
  static loadOrCreate(chain: ChainConfig, storage: StorageConfig): GatewayIdentity {
    return new GatewayIdentity(
      readOrCreateKeypair(GatewayIdentity.keypairPath(chain, storage)),
      'writer',
    );
  }
}
