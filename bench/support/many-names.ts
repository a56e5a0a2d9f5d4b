import { PublicKey } from '@solana/web3.js';
import { join } from 'node:path';
import { ChainServices } from '../../src/chain/chain.module';
import { readKeypair } from '../../src/chain/keypair-file';
import { GatewayClient } from '../../src/cli/deploy/gateway-client';
import { ChangePublisher } from '../../src/cli/versions/change-publisher';
import { VersionPublisher } from '../../src/cli/versions/version-publisher';
import { ChainConfig } from '../../src/config/chain.config';
import { commitmentOfBuffer } from '../../src/tracks/commitment';
import type { ChangedFile } from '../../src/versions/version-planner';

/** The gateway's default segment size (storage.segment_bytes): the shared file is one blob. */
const SEGMENT_BYTES = 8 * 1024 * 1024;

export interface ManyNamesOptions {
  rpcUrl: string;
  /** The writer gateway that certifies the version. */
  gatewayUrl: string;
  /** Its storage authority (co-signs the Publish). */
  storageAuthority: PublicKey;
  /** The CLI config directory that created the tape (wallet `id.json`, `tapes/<tape>.json`). */
  configDir: string;
  tape: string;
  /** Bytes of a file the tape's current version already holds: every new name points at them. */
  sharedBody: Buffer | string;
  contentType: string;
  /** The names to add. */
  names: string[];
}

export interface ManyNamesResult {
  /** The version published. */
  version: number;
  /** Bytes of tracks it added to the tape (its new manifest nodes; no file bytes). */
  addedBytes: number;
}

/**
 * Gives a deployed tape many more names, fast: one version on top of the current one whose new
 * names all name the bytes of a file the tape already holds (nothing but manifest nodes to
 * upload), published through the writer gateway as `tape deploy` publishes (ChangePublisher).
 * For benchmarks of large sites.
 */
export async function addManyNames(options: ManyNamesOptions): Promise<ManyNamesResult> {
  const chain = new ChainServices(Object.assign(new ChainConfig(), { rpc_url: options.rpcUrl }));
  const gateway = new GatewayClient(options.gatewayUrl);
  try {
    const wallet = readKeypair(join(options.configDir, 'id.json'));
    const tapeSigner = readKeypair(join(options.configDir, 'tapes', `${options.tape}.json`));
    const body = Buffer.isBuffer(options.sharedBody)
      ? options.sharedBody
      : Buffer.from(options.sharedBody);
    const shared = (name: string): ChangedFile => ({
      name,
      commitment: commitmentOfBuffer(body).commitment,
      size: body.length,
      contentType: options.contentType,
      layout: { kind: 'blob' },
    });
    const publisher = new VersionPublisher(gateway, chain.rpc, chain.ix, {
      concurrency: 16,
      segmentBytes: SEGMENT_BYTES,
      storageAuthority: options.storageAuthority,
    });
    const outcome = await new ChangePublisher(chain, gateway, publisher).publish({
      tape: new PublicKey(options.tape),
      tapeSigner,
      wallet,
      change: (base) => {
        if (!base.entries.some((e) => e.commitment.equals(shared('').commitment)))
          throw new Error('the shared file is not in the tape’s current version');
        return { put: options.names.map(shared) };
      },
      readSmall: async () => body,
      pathOf: () => {
        throw new Error('no file of its own to upload: every new name reuses the shared bytes');
      },
    });
    if (!outcome.published) throw new Error('no version published: the names were all there');
    return { version: outcome.published.version, addedBytes: outcome.published.addedBytes };
  } finally {
    gateway.close();
    chain.close();
  }
}
