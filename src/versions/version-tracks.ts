import { VersionEntry } from './version-entry';
import { VersionRoot } from './version-nodes';
import { VersionReader } from './version-reader';

/** A track a version needs kept: by commitment hex, its length in bytes. */
export type TrackSizes = Map<string, number>;

/** The segment tracks of a streamed entry, from its (verified) segment manifest. */
export type SegmentsOf = (
  entry: VersionEntry,
) => Promise<Array<{ commitment: Buffer; size: number }>>;

/**
 * Every track a version references (docs/versions.md, "What a version holds"): its root, its
 * nodes, and each entry's bytes: a blob, a segment manifest and its segments, or a pack. What the
 * tape is charged, what the collector keeps, and what the certifier checks the store holds.
 */
export async function versionTracks(
  reader: VersionReader,
  root: { commitment: Buffer; bytes: number; node: VersionRoot },
  segmentsOf: SegmentsOf,
): Promise<TrackSizes> {
  const tracks: TrackSizes = new Map([[root.commitment.toString('hex'), root.bytes]]);
  for await (const node of reader.nodes(root.node))
    tracks.set(node.commitment.toString('hex'), node.bytes);
  for await (const entry of reader.entries(root.node)) {
    const loc = entry.location;
    if (loc.kind === 'blob') tracks.set(entry.commitment.toString('hex'), entry.size);
    else if (loc.kind === 'packed') tracks.set(loc.pack.toString('hex'), loc.packSize);
    else {
      tracks.set(entry.commitment.toString('hex'), loc.manifestBytes);
      for (const s of await segmentsOf(entry)) tracks.set(s.commitment.toString('hex'), s.size);
    }
  }
  return tracks;
}

/** Bytes of all the tracks. */
export function totalBytes(tracks: TrackSizes): number {
  let sum = 0;
  for (const size of tracks.values()) sum += size;
  return sum;
}

/**
 * What Publish carries (docs/program.md): the version's own bytes, and the bytes it adds to the
 * version it replaces (the tape then keeps both: the previous version's bytes plus these).
 */
export function publishSizes(
  version: TrackSizes,
  base: TrackSizes | undefined,
): { versionBytes: number; addedBytes: number } {
  let added = 0;
  for (const [hex, size] of version) if (base?.has(hex) !== true) added += size;
  return { versionBytes: totalBytes(version), addedBytes: added };
}
