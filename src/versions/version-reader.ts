import { VersionEntry, VersionFormatError, compareNames } from './version-entry';
import {
  BranchEntry,
  CommitEntry,
  TreeNode,
  VersionRoot,
  decodeNode,
  decodeRoot,
  nodeCount,
  nodeKey,
  nodeLength,
} from './version-nodes';

/**
 * Where version nodes come from: a read of one whole track of a known length, verified against
 * its commitment (the track store's verified reads, or a peer's bytes checked the same way).
 */
export abstract class VersionNodeSource {
  abstract read(commitment: Buffer, bytes: number): Promise<Buffer>;
}

/** Decoded nodes by commitment: they are immutable, so any bounded map will do. */
export interface VersionNodeCache {
  get(key: string): TreeNode | VersionRoot | undefined;
  set(key: string, value: TreeNode | VersionRoot): void;
}

/**
 * Lookups in one version: by name (site routes, S3) and by commitment (`/object`). Every node is
 * checked against the branch that names it (first key, entry count, level, tree), so a node of
 * another version or another place cannot be spliced in.
 */
export class VersionReader {
  /** Node reads (from the source, not the cache) since this reader was made. */
  reads = 0;

  constructor(
    private readonly source: VersionNodeSource,
    private readonly cache?: VersionNodeCache,
  ) {}

  async root(commitment: Buffer, bytes: number): Promise<VersionRoot> {
    const key = commitment.toString('hex');
    const cached = this.cache?.get(key);
    if (cached !== undefined && 'entryCount' in cached) return cached;
    const root = decodeRoot(await this.fetch(commitment, bytes));
    this.cache?.set(key, root);
    return root;
  }

  async lookupName(root: VersionRoot, name: string): Promise<VersionEntry | undefined> {
    const key = Buffer.from(name, 'utf8');
    const leaf = await this.leafFor(root.names, key);
    if (leaf.tree !== 'names' || 'branches' in leaf) return undefined;
    return leaf.entries.find((e) => e.name === name);
  }

  async lookupCommitment(root: VersionRoot, commitment: Buffer): Promise<CommitEntry | undefined> {
    const leaf = await this.leafFor(root.commits, commitment);
    if (leaf.tree !== 'commits' || 'branches' in leaf) return undefined;
    return leaf.entries.find((e) => e.commitment.equals(commitment));
  }

  /** Entries in name order after `after` (exclusive), at most `limit`, optionally under a prefix. */
  async list(
    root: VersionRoot,
    options: { after?: string; prefix?: string; limit: number },
  ): Promise<VersionEntry[]> {
    const out: VersionEntry[] = [];
    const start = maxName(options.after, options.prefix);
    const prefix = options.prefix ?? '';
    for await (const entry of this.walk(
      root.names,
      start === undefined ? undefined : Buffer.from(start, 'utf8'),
    )) {
      if (out.length >= options.limit) break;
      if (options.after !== undefined && compareNames(entry.name, options.after) <= 0) continue;
      if (!entry.name.startsWith(prefix)) {
        if (compareNames(entry.name, prefix) > 0) break;
        continue;
      }
      out.push(entry);
    }
    return out;
  }

  /** Every entry in name order (the certifier's and the collector's walk). */
  async *entries(root: VersionRoot): AsyncGenerator<VersionEntry> {
    yield* this.walk(root.names, undefined);
  }

  /** Every stored node below the tops, with its length: what a version references besides files. */
  async *nodes(root: VersionRoot): AsyncGenerator<{ commitment: Buffer; bytes: number }> {
    for (const top of [root.names, root.commits]) yield* this.nodesUnder(top);
  }

  private async *nodesUnder(node: TreeNode): AsyncGenerator<{ commitment: Buffer; bytes: number }> {
    if (!('branches' in node)) return;
    for (let i = 0; i < node.branches.length; i++) {
      const b = node.branches[i];
      yield { commitment: b.child, bytes: b.childBytes };
      yield* this.nodesUnder(await this.child(node, i));
    }
  }

  private async *walk(node: TreeNode, from: Buffer | undefined): AsyncGenerator<VersionEntry> {
    if (!('branches' in node)) {
      if (node.tree !== 'names') return;
      for (const e of node.entries) {
        if (from === undefined || Buffer.compare(Buffer.from(e.name, 'utf8'), from) >= 0) yield e;
      }
      return;
    }
    const first = from === undefined ? 0 : Math.max(0, childIndex(node.branches, from));
    for (let i = first; i < node.branches.length; i++)
      yield* this.walk(await this.child(node, i), from);
  }

  private async leafFor(top: TreeNode, key: Buffer): Promise<TreeNode> {
    let node = top;
    while ('branches' in node) {
      const i = childIndex(node.branches, key);
      if (i < 0) return { tree: node.tree, level: 0, branches: [] };
      node = await this.child(node, i);
    }
    return node;
  }

  /** The i-th child of a branch, checked against what the branch says of it. */
  private async child(
    parent: TreeNode & { branches: BranchEntry[] },
    i: number,
  ): Promise<TreeNode> {
    const b = parent.branches[i];
    const key = b.child.toString('hex');
    let node = this.cache?.get(key);
    if (node === undefined || 'entryCount' in node) {
      node = decodeNode(await this.fetch(b.child, b.childBytes), {
        tree: parent.tree,
        level: parent.level - 1,
      });
      this.cache?.set(key, node);
    }
    if (node.level !== parent.level - 1 || node.tree !== parent.tree)
      throw new VersionFormatError('node out of place');
    const next = parent.branches[i + 1]?.key;
    const last = nodeKey(node, nodeLength(node) - 1);
    if (
      !nodeKey(node, 0).equals(b.key) ||
      nodeCount(node) !== b.count ||
      (next !== undefined && Buffer.compare(last, next) >= 0)
    ) {
      throw new VersionFormatError(`node ${key} does not match the branch that names it`);
    }
    return node;
  }

  private async fetch(commitment: Buffer, bytes: number): Promise<Buffer> {
    this.reads++;
    return this.source.read(commitment, bytes);
  }
}

/** Index of the last branch whose first key is at or before `key`; -1 when before all. */
function childIndex(branches: BranchEntry[], key: Buffer): number {
  let lo = 0;
  let hi = branches.length - 1;
  let found = -1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    if (Buffer.compare(branches[mid].key, key) <= 0) {
      found = mid;
      lo = mid + 1;
    } else hi = mid - 1;
  }
  return found;
}

function maxName(a: string | undefined, b: string | undefined): string | undefined {
  if (a === undefined) return b;
  if (b === undefined) return a;
  return compareNames(a, b) >= 0 ? a : b;
}
