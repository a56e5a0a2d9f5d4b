import { commitmentOfBuffer } from '../tracks/commitment';
import { VersionEntry, VersionFormatError, validateEntry } from './version-entry';
import { CommitEntry, MAX_SETTINGS_BYTES, VersionRoot, encodeRoot } from './version-nodes';
import { StoredNode, buildCommitsTree, buildNamesTree } from './version-tree';

/** A version ready to store: its root (whose commitment the tape's pointer names) and nodes. */
export interface BuiltVersion {
  root: VersionRoot;
  rootBytes: Buffer;
  rootCommitment: Buffer;
  /** Every node below the two tops (the tops live inside the root). */
  nodes: StoredNode[];
  /** Node reads a cold lookup needs after the root, per tree. */
  depth: { names: number; commits: number };
}

/**
 * Builds the one canonical version of a set of entries, settings and compiled rules. Entries may come in any
 * order; a repeated name, an invalid entry or oversized settings is a VersionFormatError.
 */
export function buildVersion(
  entries: readonly VersionEntry[],
  settings: Buffer = Buffer.alloc(0),
  rules: Buffer = Buffer.alloc(0),
): BuiltVersion {
  if (settings.length > MAX_SETTINGS_BYTES) {
    throw new VersionFormatError(
      `settings of ${settings.length} bytes (at most ${MAX_SETTINGS_BYTES})`,
    );
  }
  // Keys encoded once: comparing strings by their UTF-8 bytes would encode them at each step.
  const sorted = entries
    .map((entry) => ({ entry, key: Buffer.from(entry.name, 'utf8') }))
    .sort((a, b) => Buffer.compare(a.key, b.key))
    .map((keyed) => keyed.entry);
  for (let i = 0; i < sorted.length; i++) {
    validateEntry(sorted[i]);
    if (i > 0 && sorted[i - 1].name === sorted[i].name) {
      throw new VersionFormatError(
        `${JSON.stringify(sorted[i].name.slice(0, 200))}: name appears twice`,
      );
    }
  }
  const names = buildNamesTree(sorted);
  const commits = buildCommitsTree(commitEntries(sorted));
  const root: VersionRoot = {
    entryCount: sorted.length,
    totalSize: sorted.reduce((sum, e) => sum + e.size, 0),
    settings,
    rules,
    names: names.top,
    commits: commits.top,
  };
  const rootBytes = encodeRoot(root);
  return {
    root,
    rootBytes,
    rootCommitment: commitmentOfBuffer(rootBytes).commitment,
    nodes: [...names.nodes, ...commits.nodes],
    depth: { names: names.depth, commits: commits.depth },
  };
}

/**
 * One entry per distinct commitment, in commitment order. Where several names share bytes, the
 * first name in byte order decides the content type: the choice must be canonical, not first
 * come.
 */
function commitEntries(sortedByName: readonly VersionEntry[]): CommitEntry[] {
  const byCommitment = new Map<string, CommitEntry>();
  for (const e of sortedByName) {
    const key = e.commitment.toString('hex');
    const seen = byCommitment.get(key);
    if (seen !== undefined) {
      // The commitment binds the size: two sizes for one commitment is a lie somewhere.
      if (seen.size !== e.size)
        throw new VersionFormatError(
          `${JSON.stringify(e.name.slice(0, 200))}: size differs from another name's with the same commitment`,
        );
      continue;
    }
    byCommitment.set(key, {
      commitment: e.commitment,
      size: e.size,
      contentType: e.contentType,
      location: e.location,
    });
  }
  return [...byCommitment.values()].sort((a, b) => Buffer.compare(a.commitment, b.commitment));
}
