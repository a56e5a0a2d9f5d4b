import { PublicKey } from '@solana/web3.js';
import { GatewayClient, UploadConfig } from '../../../src/cli/deploy/gateway-client';
import { VersionPublisher } from '../../../src/cli/versions/version-publisher';
import { GatewayOptions } from '../processes/gateway';
import { ObjectFixture, startObjectFixture } from './object-fixture';
import { VersionSite } from '../fixtures/version-site';

/** An object fixture (gateway, wallet, tape) with a gateway client and a version publisher. */
export interface VersionLab {
  fx: ObjectFixture;
  gateway: GatewayClient;
  publisher: VersionPublisher;
  /** What the gateway said at `GET /upload/config`. */
  config: UploadConfig;
}

/**
 * Starts an object fixture (`options` as `startObjectFixture` takes them), keeps the tape's
 * `keep` newest versions if told (`set-keep`), and makes a publisher (8 uploads at once) for
 * the gateway's segment size and storage authority. Stop with `stopVersionLab`.
 */
export async function startVersionLab(
  options: GatewayOptions & { capacity?: number; keep?: number },
): Promise<VersionLab> {
  const { keep, ...fixture } = options;
  const fx = await startObjectFixture(fixture);
  if (keep !== undefined) await fx.client.setKeep(fx.wallet, fx.tape, keep);
  const gateway = new GatewayClient(fx.gw.url);
  const config = await gateway.uploadConfig();
  const publisher = new VersionPublisher(gateway, fx.client.chain.rpc, fx.client.chain.ix, {
    concurrency: 8,
    segmentBytes: config.segmentBytes,
    storageAuthority: new PublicKey(config.storageAuthority),
  });
  return { fx, gateway, publisher, config };
}

export async function stopVersionLab(lab: VersionLab | undefined): Promise<void> {
  lab?.gateway.close();
  await lab?.fx.stop();
}

/** Every track a planned version references (root, nodes, packs, blobs), by hex, with its kind. */
export function versionTracks(
  v: Awaited<ReturnType<VersionSite['plan']>>,
): Map<string, 'root' | 'node' | 'pack' | 'blob'> {
  const tracks = new Map<string, 'root' | 'node' | 'pack' | 'blob'>([
    [v.built.rootCommitment.toString('hex'), 'root'],
  ]);
  for (const n of v.built.nodes) tracks.set(n.commitment.toString('hex'), 'node');
  for (const e of v.plan.entries) {
    const loc = e.location;
    if (loc.kind === 'packed') tracks.set(loc.pack.toString('hex'), 'pack');
    else if (loc.kind === 'blob') tracks.set(e.commitment.toString('hex'), 'blob');
    else throw new Error('these tests publish no streamed file');
  }
  return tracks;
}
