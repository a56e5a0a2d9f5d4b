import { Keypair, PublicKey } from '@solana/web3.js';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { TapeInstructions } from '../../src/chain/tape-instructions';
import { commitmentOfBuffer } from '../../src/tracks/commitment';
import { FileTrackStore } from '../../src/tracks/file-track-store';
import { encodeManifest, MANIFEST_TYPE, MANIFEST_VERSION } from '../../src/tracks/manifest';
import { isPackable, packFiles } from '../../src/versions/pack-writer';
import { BuiltVersion, buildVersion } from '../../src/versions/version-builder';
import { VersionEntry } from '../../src/versions/version-entry';

/**
 * Versions of a site built in the test process, as a publisher would build them
 * (docs/versions.md): small files packed, bigger ones a blob, `stream` ones a segment manifest
 * over 64 KiB segments; every track the version references, ready to be written into a
 * gateway's content-addressed store, and what Publish carries.
 */
export interface SiteFile {
  bytes: Buffer;
  contentType: string;
  /** Stored as a segment manifest and segments rather than packed or a blob. */
  stream?: boolean;
}

export interface SiteVersion {
  built: BuiltVersion;
  entries: VersionEntry[];
  /** Every track it references, by commitment hex. */
  tracks: Map<string, Buffer>;
  versionBytes: number;
}

const SEGMENT_BYTES = 64 * 1024;

export function buildSiteVersion(files: Record<string, SiteFile>): SiteVersion {
  const tracks = new Map<string, Buffer>();
  const put = (bytes: Buffer): Buffer => {
    const commitment = commitmentOfBuffer(bytes).commitment;
    tracks.set(commitment.toString('hex'), bytes);
    return commitment;
  };
  const names = Object.keys(files).sort();
  const small = names.filter((n) => !files[n].stream && isPackable(files[n].bytes.length));
  const packed = packFiles(small.map((name) => ({ name, bytes: files[name].bytes })));
  const packs = packed.packs.map((p) => (put(p.bytes), p));
  const entries: VersionEntry[] = names.map((name) => {
    const { bytes, contentType, stream } = files[name];
    const base = { name, size: bytes.length, contentType, metadata: Buffer.alloc(0) };
    const place = packed.placements.get(name);
    if (place !== undefined) {
      const pack = packs[place.pack];
      return {
        ...base,
        commitment: commitmentOfBuffer(bytes).commitment,
        location: {
          kind: 'packed',
          pack: pack.commitment,
          packSize: pack.bytes.length,
          offset: place.offset,
        },
      };
    }
    if (!stream) return { ...base, commitment: put(bytes), location: { kind: 'blob' } };
    const segments = [];
    for (let at = 0; at < bytes.length; at += SEGMENT_BYTES) {
      const segment = bytes.subarray(at, at + SEGMENT_BYTES);
      segments.push({ size: segment.length, commitment: put(segment).toString('hex') });
    }
    const manifest = encodeManifest({
      type: MANIFEST_TYPE,
      version: MANIFEST_VERSION,
      size: bytes.length,
      segment_bytes: SEGMENT_BYTES,
      segments,
    });
    return {
      ...base,
      commitment: put(manifest),
      location: { kind: 'stream', manifestBytes: manifest.length },
    };
  });
  const settings = files['_site.json']?.bytes ?? Buffer.alloc(0);
  const built = buildVersion(entries, settings);
  put(built.rootBytes);
  for (const node of built.nodes) put(node.bytes);
  let versionBytes = 0;
  for (const bytes of tracks.values()) versionBytes += bytes.length;
  return { built, entries, tracks, versionBytes };
}

/** Bytes of `next` that `base` does not hold (Publish's `added_bytes`). */
export function addedBytes(next: SiteVersion, base?: SiteVersion): number {
  let added = 0;
  for (const [hex, bytes] of next.tracks) if (!base?.tracks.has(hex)) added += bytes.length;
  return added;
}

/**
 * Writes a version's tracks into a gateway's file store (`<data_dir>/tracks`): the store is
 * content-addressed, so a second writer of the same bytes is harmless. Its reference index is
 * kept apart from the gateway's.
 */
export async function storeSiteVersion(
  dataDir: string,
  indexDir: string,
  version: SiteVersion,
): Promise<void> {
  const store = new FileTrackStore(join(dataDir, 'tracks'), {
    indexPath: join(indexDir, `references-${Date.now()}-${Math.random()}.sqlite`),
  });
  for (const [hex, bytes] of version.tracks) {
    const commitment = Buffer.from(hex, 'hex');
    if (await store.has(commitment)) continue;
    await store.put(commitment, bytes.length, Readable.from([bytes], { objectMode: false }));
  }
}

/** The gateway's storage-authority key (its data directory's default keypair file). */
export function gatewayKeypair(dataDir: string): Keypair {
  const secret = JSON.parse(readFileSync(join(dataDir, 'gateway-key.json'), 'utf8')) as number[];
  return Keypair.fromSecretKey(Uint8Array.from(secret));
}

/** Publish of `next` over `base` (the tape's current version), signed by tape and gateway. */
export function publishIx(
  ix: TapeInstructions,
  a: { tape: PublicKey; signer: PublicKey; storageAuthority: PublicKey },
  next: SiteVersion,
  base: { version: number; site?: SiteVersion },
) {
  return ix.publish({
    ...a,
    expectedSequence: base.version,
    root: next.built.rootCommitment,
    versionBytes: next.versionBytes,
    // The kept set is the base and the new version: the base's bytes and what the new one adds.
    keptBytes: (base.site?.versionBytes ?? 0) + addedBytes(next, base.site),
  });
}
