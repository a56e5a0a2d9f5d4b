import { Keypair } from '@solana/web3.js';
import { encodeTape, NO_VERSION, TapeRecord } from '../../chain/account-layouts';
import { commitmentOfBuffer } from '../../tracks/commitment';
import { BuiltVersion } from '../../versions/version-builder';
import { VersionEntry } from '../../versions/version-entry';
import { VersionNodeSource, VersionReader } from '../../versions/version-reader';
import {
  PROOF_FORMAT,
  ProofSelector,
  ProofTarget,
  RpcAccountAnswer,
  TapeProof,
} from './tape-verifier';

/** What the specs of the verifier core build: a site's files, a tape's account, proofs. */

/** The tape the specs' proofs are of (one per spec file: Jest loads this anew for each). */
const tapeKey = Keypair.generate().publicKey;
export const TAPE = tapeKey.toBase58();

/** A site's files: the bytes by name and the version entries (blobs unless a location is given). */
export class SiteFiles {
  readonly bytes = new Map<string, Buffer>();
  readonly entries: VersionEntry[] = [];

  add(name: string, body: Buffer, location?: VersionEntry['location'], commitment?: Buffer): void {
    this.bytes.set(name, body);
    this.entries.push({
      name,
      commitment: commitment ?? commitmentOfBuffer(body).commitment,
      size: body.length,
      contentType: 'text/html',
      metadata: Buffer.alloc(0),
      location: location ?? { kind: 'blob' },
    });
  }
}

/**
 * The RPC answer (`getAccountInfo`, base64) for the tape whose current version is `current`
 * (0: none), keeping `kept` (number and version) and naming `aliases`.
 */
export function tapeAccount(
  slot: number,
  current: number,
  kept: Array<[number, BuiltVersion]>,
  aliases: TapeRecord['aliases'] = [],
): RpcAccountAnswer {
  const history = kept
    .map(([version, v]) => ({ version, root: v.rootCommitment, bytes: 1, publishedAt: 1 }))
    .sort((a, b) => a.version - b.version);
  const record: TapeRecord = {
    authority: tapeKey,
    delegate: null,
    capacity: 1 << 30,
    activeEpoch: 0,
    expiryEpoch: 100,
    createdAt: 1,
    payer: tapeKey,
    ...NO_VERSION,
    version: current,
    latestVersion: Math.max(current, ...kept.map(([n]) => n)),
    history,
    aliases,
  };
  return {
    context: { slot },
    value: { data: [encodeTape(record).toString('base64'), 'base64'], owner: 'x' },
  };
}

/**
 * A proof of `version` as the gateway builds it (src/verify/version-proofs.ts): `lookups` run on
 * a reader over the version's nodes that records each node it reads, and return the proof's
 * entry and content; the proof carries the root and every node read.
 */
export async function recordedProof(
  version: BuiltVersion,
  fields: { version: number; target: ProofTarget; selector?: ProofSelector },
  lookups: (reader: VersionReader) => Promise<Pick<TapeProof, 'entry' | 'content'>>,
): Promise<TapeProof> {
  const tracks = new Map<string, Buffer>();
  for (const n of version.nodes) tracks.set(n.commitment.toString('hex'), n.bytes);
  const nodes = [version.rootBytes];
  const source: VersionNodeSource = {
    read: async (c) => {
      const b = tracks.get(c.toString('hex'))!;
      nodes.push(b);
      return b;
    },
  };
  const answer = await lookups(new VersionReader(source));
  return {
    format: PROOF_FORMAT,
    tape: TAPE,
    pointer: { slot: 0, data: '' },
    version: fields.version,
    root: version.rootCommitment.toString('hex'),
    ...(fields.selector && { selector: fields.selector }),
    target: fields.target,
    nodes: nodes.map((n) => n.toString('base64')),
    ...answer,
  };
}

/** A blob's content proof: the chunk-hash list of its bytes. */
export function chunkHashesOf(bytes: Buffer): { chunkHashes: string } {
  return { chunkHashes: commitmentOfBuffer(bytes).chunkHashes.toString('base64') };
}
