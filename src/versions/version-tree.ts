import { createHash } from 'node:crypto';
import { commitmentOfBuffer } from '../tracks/commitment';
import { VersionEntry } from './version-entry';
import {
  BranchEntry,
  CommitEntry,
  TreeKind,
  TreeNode,
  NODE_HEADER_BYTES,
  encodeNode,
  entryBytes,
  nodeBytes,
  nodeCount,
  nodeKey,
} from './version-nodes';

/**
 * The shape of a version's trees (docs/versions.md, "Tree shape"): content-defined, so the
 * same entries always make the same nodes whatever the history, and one changed entry changes
 * only the nodes on its path.
 *
 * - Level 0 holds the entries in key order; a node ends after an entry whose key is a
 *   *boundary* at that level (1 key in BOUNDARY_ONE_IN, by a hash of level and key) once the node
 *   holds two entries or more, or once its encoding reaches MAX_NODE_BYTES.
 * - Each stored node becomes one branch entry of the level above (first key, commitment, length,
 *   entries under it), cut the same way with that level's boundaries.
 * - The first level that has at most TOP_MAX_ENTRIES entries and at most TOP_MAX_BYTES of them
 *   is not cut: it is the *top*, kept inside the version root. So a lookup reads the root, then
 *   one node per level below the top: for 100,000 names, root + one branch + one leaf.
 */
export const BOUNDARY_ONE_IN = 32;
export const MAX_NODE_BYTES = 8 * 1024;
export const TOP_MAX_ENTRIES = 256;
export const TOP_MAX_BYTES = 32 * 1024;

const BOUNDARY_DOMAIN = Buffer.from('tape-version-v1 boundary', 'ascii');
const BOUNDARY_LIMIT = Math.floor(0x1_0000_0000 / BOUNDARY_ONE_IN);

/** A node stored as a track of its own: its commitment, bytes, tree and level. */
export interface StoredNode {
  commitment: Buffer;
  bytes: Buffer;
  tree: TreeKind;
  level: number;
}

export interface BuiltTree {
  top: TreeNode;
  /** Every node below the top, in build order. */
  nodes: StoredNode[];
  /** Levels below the top: reads a lookup needs after the root. */
  depth: number;
}

export function isBoundary(level: number, key: Buffer): boolean {
  const known = `${level}:${key.toString('latin1')}`;
  const kept = boundaries.get(known);
  if (kept !== undefined) return kept;
  const h = createHash('sha256')
    .update(BOUNDARY_DOMAIN)
    .update(Buffer.of(level))
    .update(key)
    .digest();
  const boundary = h.readUInt32LE(0) < BOUNDARY_LIMIT;
  if (boundaryKeyBytes + known.length > BOUNDARY_CACHE_BYTES) {
    boundaries.clear();
    boundaryKeyBytes = 0;
  }
  boundaries.set(known, boundary);
  boundaryKeyBytes += known.length;
  return boundary;
}

/**
 * Boundaries already decided (a pure function of level and key): every build of a version
 * decides one per entry and branch, and the S3 group commit and the certifier rebuild a whole
 * version each round, so most keys come back. Bounded by the keys' length: cleared when full.
 */
const boundaries = new Map<string, boolean>();
const BOUNDARY_CACHE_BYTES = 16 * 1024 * 1024;
let boundaryKeyBytes = 0;

export function buildNamesTree(entries: readonly VersionEntry[]): BuiltTree {
  return buildTree('names', { tree: 'names', level: 0, entries: [...entries] });
}

export function buildCommitsTree(entries: readonly CommitEntry[]): BuiltTree {
  return buildTree('commits', { tree: 'commits', level: 0, entries: [...entries] });
}

function buildTree(tree: TreeKind, level0: TreeNode): BuiltTree {
  const nodes: StoredNode[] = [];
  let current = level0;
  for (let level = 0; ; level++) {
    if (fitsTop(current)) return { top: current, nodes, depth: level };
    const branches: BranchEntry[] = [];
    for (const node of cut(current)) {
      const bytes = encodeNode(node);
      const commitment = commitmentOfBuffer(bytes).commitment;
      nodes.push({ commitment, bytes, tree, level });
      branches.push({
        key: nodeKey(node, 0),
        child: commitment,
        childBytes: bytes.length,
        count: nodeCount(node),
      });
    }
    current = { tree, level: level + 1, branches };
  }
}

function fitsTop(node: TreeNode): boolean {
  const n = 'branches' in node ? node.branches.length : node.entries.length;
  return n <= TOP_MAX_ENTRIES && nodeBytes(node) <= TOP_MAX_BYTES;
}

/** Cuts one level's entries into nodes by the boundary rule. */
function cut(node: TreeNode): TreeNode[] {
  const items: unknown[] = 'branches' in node ? node.branches : node.entries;
  const out: TreeNode[] = [];
  let start = 0;
  let bytes = NODE_HEADER_BYTES;
  for (let i = 0; i < items.length; i++) {
    bytes += entryBytes(node, i);
    const held = i - start + 1;
    if ((held >= 2 && isBoundary(node.level, nodeKey(node, i))) || bytes >= MAX_NODE_BYTES) {
      out.push(slice(node, start, i + 1));
      start = i + 1;
      bytes = NODE_HEADER_BYTES;
    }
  }
  if (start < items.length) out.push(slice(node, start, items.length));
  return out;
}

function slice(node: TreeNode, from: number, to: number): TreeNode {
  if ('branches' in node)
    return { tree: node.tree, level: node.level, branches: node.branches.slice(from, to) };
  if (node.tree === 'names')
    return { tree: 'names', level: 0, entries: node.entries.slice(from, to) };
  return { tree: 'commits', level: 0, entries: node.entries.slice(from, to) };
}
