import { EntryLocation, VersionEntry } from './version-entry';
import { TreeNode, VersionRoot } from './version-nodes';
import { VersionNodeCache } from './version-reader';
import { TrackSizes } from './version-tracks';

/** A streamed entry's segments, as its verified segment manifest lists them. */
export type Segments = Array<{ commitment: Buffer; size: number }>;

/**
 * What the certifier established about one version it certified (docs/versions.md,
 * "Certification"), so the next version of the same tape is checked in proportion to what
 * changed. Every fact is bound to commitments, never to names or positions:
 *
 * - `nodes`: nodes decoded from bytes verified against their commitment. A node is a pure
 *   function of its commitment, so a later version naming the same commitment names these
 *   bytes; the reader still checks each node against the branch that names it.
 * - `entries`: entries whose bytes were checked, by `entryFact` (commitment, size, location):
 *   "range [offset, offset + size) of pack P hashes to C", "blob C of n bytes is held whole",
 *   "the segments of manifest C are held". The range fact is pure; holding is kept true by the
 *   version's own references, recorded before its Publish and kept while the tape keeps it.
 * - `segments`: a streamed entry's segments, by segment-manifest commitment (pure).
 * - `tracks`: the version's tracks (the next version's base for added bytes).
 */
export interface CertifiedFacts {
  root: Buffer;
  nodes: Map<string, TreeNode | VersionRoot>;
  entries: Set<string>;
  segments: Map<string, Segments>;
  tracks: TrackSizes;
}

/** The key of an entry's byte check: everything the check depends on, nothing else. */
export function entryFact(entry: VersionEntry): string {
  return `${entry.commitment.toString('hex')}:${entry.size}:${locationFact(entry.location)}`;
}

function locationFact(loc: EntryLocation): string {
  if (loc.kind === 'blob') return 'blob';
  if (loc.kind === 'stream') return `stream:${loc.manifestBytes}`;
  return `packed:${loc.pack.toString('hex')}:${loc.packSize}:${loc.offset}`;
}

/**
 * The reader's node cache during one certification: nodes of the trusted (base) version are
 * served without a store read; every node the walk meets, trusted or read, is collected as the
 * new version's `nodes`.
 */
export class CertifyingNodeCache implements VersionNodeCache {
  readonly seen = new Map<string, TreeNode | VersionRoot>();

  constructor(private readonly trusted: CertifiedFacts | undefined) {}

  get(key: string): TreeNode | VersionRoot | undefined {
    const mine = this.seen.get(key);
    if (mine !== undefined) return mine;
    const node = this.trusted?.nodes.get(key);
    if (node !== undefined) this.seen.set(key, node);
    return node;
  }

  set(key: string, value: TreeNode | VersionRoot): void {
    this.seen.set(key, value);
  }
}
