import {
  REDIRECT_STATUSES,
  RedirectRule,
  RedirectStatus,
} from '../../versions/rules/redirect-match';
import { compareBytes, equalBytes, hex, unhex } from './bytes';
import { Reader } from './node-reader';
import { EntryLocation, ProofEntry, Sha256 } from './proof-format';
import { Refusal } from './refusal';
import { trackCommitment } from './track-commitment';

/**
 * Version nodes (docs/versions.md, "Encoding"): the root and the names and commits trees,
 * decoded, each node found by its own commitment and checked against the branch naming it.
 */

const ROOT_MAGIC = 'tape-version-v1';
/** A root carrying the site's compiled `_redirects` and `_headers` (docs/versions.md). */
const ROOT_MAGIC_RULES = 'tape-version-v2';
const MAX_LEVEL = 16;

/** A version's entries and nodes, checked from its root: what `tape verify --all` walks. */
export interface CheckedVersion {
  entries: ProofEntry[];
}

/**
 * Every entry of the names tree of a version whose root is `root` (hex), from its nodes (the
 * root's bytes first or anywhere; each node found by its own commitment and checked against the
 * branch naming it).
 */
export async function walkVersion(
  root: string,
  nodes: Uint8Array[],
  sha256: Sha256,
): Promise<CheckedVersion> {
  const byCommitment = await indexNodes(nodes, sha256);
  const rootBytes = byCommitment.get(root);
  if (!rootBytes) throw new Refusal('root_mismatch', `no node hashes to the root ${root}`);
  const top = decodeRoot(rootBytes).names;
  const entries: ProofEntry[] = [];
  const visit = (node: VersionNode): void => {
    if (node.level === 0) {
      entries.push(...node.entries);
      return;
    }
    for (let i = 0; i < node.branches.length; i++) visit(childOf(node, i, byCommitment));
  };
  visit(top);
  return { entries };
}

/** The `_redirects` rules of a root's compiled rules (docs/versions.md, "Encoding"). */
export function redirectsOfRules(bytes: Uint8Array): RedirectRule[] {
  if (bytes.length === 0) return [];
  const bad = (): never => {
    throw new Refusal('node_mismatch', 'malformed site rules in the version root');
  };
  let parsed: unknown;
  try {
    parsed = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(bytes));
  } catch {
    return bad();
  }
  const list = (parsed as { redirects?: unknown }).redirects;
  if (!Array.isArray(list)) return bad();
  return list.map((r: unknown): RedirectRule => {
    if (!Array.isArray(r) || r.length !== 4) return bad();
    const [from, to, status, force] = r as unknown[];
    if (typeof from !== 'string' || typeof to !== 'string' || typeof force !== 'boolean')
      return bad();
    if (!(REDIRECT_STATUSES as readonly unknown[]).includes(status)) bad();
    if (!from.startsWith('/') || !to.startsWith('/') || to.startsWith('//')) bad();
    return { from, to, status: status as RedirectStatus, force };
  });
}

interface Branch {
  key: Uint8Array;
  child: string;
  childBytes: number;
  count: number;
}

export interface VersionNode {
  tree: 1 | 2;
  level: number;
  branches: Branch[];
  entries: ProofEntry[];
}

export async function indexNodes(
  nodes: Uint8Array[],
  sha256: Sha256,
): Promise<Map<string, Uint8Array>> {
  const map = new Map<string, Uint8Array>();
  for (const node of nodes) map.set(hex((await trackCommitment(node, sha256)).commitment), node);
  return map;
}

export function leafFor(
  top: VersionNode,
  key: Uint8Array,
  nodes: Map<string, Uint8Array>,
): VersionNode {
  let node = top;
  while (node.level > 0) {
    let index = -1;
    for (let i = 0; i < node.branches.length; i++)
      if (compareBytes(node.branches[i].key, key) <= 0) index = i;
    if (index < 0) return { ...node, level: 0, branches: [], entries: [] };
    node = childOf(node, index, nodes);
  }
  return node;
}

/** The i-th child of a branch, checked against what the branch says of it. */
function childOf(parent: VersionNode, i: number, nodes: Map<string, Uint8Array>): VersionNode {
  const b = parent.branches[i];
  const bytes = nodes.get(b.child);
  if (!bytes) throw new Refusal('node_mismatch', `the proof lacks node ${b.child}`);
  if (bytes.length !== b.childBytes)
    throw new Refusal('node_mismatch', `node ${b.child} is not of the length its branch states`);
  const r = new Reader(bytes);
  const node = readNode(r);
  r.end();
  const last = node.level === 0 ? node.entries.length : node.branches.length;
  const next = parent.branches[i + 1]?.key;
  if (last === 0) throw new Refusal('node_mismatch', `node ${b.child} is empty`);
  if (
    node.tree !== parent.tree ||
    node.level !== parent.level - 1 ||
    !equalBytes(nodeKey(node, 0), b.key) ||
    countOf(node) !== b.count ||
    (next !== undefined && compareBytes(nodeKey(node, last - 1), next) >= 0)
  )
    throw new Refusal('node_mismatch', `node ${b.child} does not match the branch that names it`);
  return node;
}

export function decodeRoot(bytes: Uint8Array): {
  names: VersionNode;
  commits: VersionNode;
  rules: RedirectRule[];
} {
  const r = new Reader(bytes);
  const magic = new TextDecoder().decode(r.bytes(ROOT_MAGIC.length));
  if (magic !== ROOT_MAGIC && magic !== ROOT_MAGIC_RULES)
    throw new Refusal('node_mismatch', 'not a version root');
  const entryCount = r.u64();
  r.u64();
  r.bytes(r.u32());
  const rules = magic === ROOT_MAGIC_RULES ? r.bytes(r.u32()) : new Uint8Array(0);
  if (magic === ROOT_MAGIC_RULES && rules.length === 0)
    throw new Refusal('node_mismatch', 'a v2 root without rules');
  const names = readNode(r);
  const commits = readNode(r);
  r.end();
  if (names.tree !== 1 || commits.tree !== 2 || countOf(names) !== entryCount)
    throw new Refusal('node_mismatch', 'malformed version root');
  return { names, commits, rules: redirectsOfRules(rules) };
}

function readNode(r: Reader): VersionNode {
  if (r.u8() !== 1) throw new Refusal('node_mismatch', 'unknown node format');
  const tree = r.u8();
  if (tree !== 1 && tree !== 2) throw new Refusal('node_mismatch', 'unknown tree');
  const level = r.u8();
  if (level > MAX_LEVEL) throw new Refusal('node_mismatch', 'level too high');
  const count = r.u32();
  const node: VersionNode = { tree, level, branches: [], entries: [] };
  for (let i = 0; i < count; i++) {
    if (level > 0) {
      const key = tree === 1 ? r.bytes(r.u16()) : r.bytes(32);
      node.branches.push({ key, child: hex(r.bytes(32)), childBytes: r.u64(), count: r.u64() });
    } else if (tree === 1) {
      const name = r.str(r.u16());
      const commitment = hex(r.bytes(32));
      const size = r.u64();
      const contentType = r.str(r.u8());
      r.bytes(r.u16());
      node.entries.push({ name, commitment, size, contentType, location: readLocation(r) });
    } else {
      const commitment = hex(r.bytes(32));
      const size = r.u64();
      const contentType = r.str(r.u8());
      node.entries.push({ commitment, size, contentType, location: readLocation(r) });
    }
  }
  if (level > 0 && count === 0) throw new Refusal('node_mismatch', 'empty branch');
  for (let i = 1; i < count; i++)
    if (compareBytes(nodeKey(node, i - 1), nodeKey(node, i)) >= 0)
      throw new Refusal('node_mismatch', 'node keys not strictly ascending');
  return node;
}

function readLocation(r: Reader): EntryLocation {
  const kind = r.u8();
  if (kind === 0) return { kind: 'blob' };
  if (kind === 1) return { kind: 'stream', manifestBytes: r.u64() };
  if (kind === 2)
    return { kind: 'packed', pack: hex(r.bytes(32)), packSize: r.u64(), offset: r.u64() };
  throw new Refusal('node_mismatch', `unknown location kind ${kind}`);
}

function nodeKey(node: VersionNode, i: number): Uint8Array {
  if (node.level > 0) return node.branches[i].key;
  const e = node.entries[i];
  return node.tree === 1 ? new TextEncoder().encode(e.name) : unhex(e.commitment);
}

function countOf(node: VersionNode): number {
  if (node.level === 0) return node.entries.length;
  return node.branches.reduce((sum, b) => sum + b.count, 0);
}
