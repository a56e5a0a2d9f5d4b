import { MAX_COMPILED_RULES_BYTES } from './rules/rules-limits';
import { ByteReader, LayoutError } from '../chain/byte-codec';
import { COMMITMENT_BYTES } from '../tracks/commitment';
import {
  EntryLocation,
  MAX_CONTENT_TYPE_BYTES,
  MAX_METADATA_BYTES,
  MAX_NAME_BYTES,
  VersionEntry,
  VersionFormatError,
  validateEntry,
} from './version-entry';

/**
 * The canonical binary encoding of a version's nodes (docs/versions.md, "Encoding"). One
 * spelling: the decoder re-encodes what it read and refuses any byte that differs, so a version
 * has exactly one root commitment.
 */

/** The two trees of a version: entries by name, and the same bytes by content commitment. */
export type TreeKind = 'names' | 'commits';

/** What `/object/{track}` needs of a commitment, without its name. */
export interface CommitEntry {
  commitment: Buffer;
  size: number;
  contentType: string;
  location: EntryLocation;
}

/** One child of a branch: the first key under it, its node's commitment and byte length. */
export interface BranchEntry {
  key: Buffer;
  child: Buffer;
  childBytes: number;
  /** Leaf entries under the child. */
  count: number;
}

export type TreeNode =
  | { tree: 'names'; level: 0; entries: VersionEntry[] }
  | { tree: 'commits'; level: 0; entries: CommitEntry[] }
  | { tree: TreeKind; level: number; branches: BranchEntry[] };

export interface VersionRoot {
  /** Names in the version. */
  entryCount: number;
  /** Sum of the entries' sizes (what a listing shows, not what the tape is charged). */
  totalSize: number;
  /** Canonical JSON of the site settings (`_site.json`), empty when the site has none. */
  settings: Buffer;
  /**
   * The site's compiled rules (`_redirects`, `_headers`: src/versions/rules/site-rules.ts),
   * empty when it has none. A root with rules is spelled with ROOT_MAGIC_RULES.
   */
  rules: Buffer;
  names: TreeNode;
  commits: TreeNode;
}

export const NODE_FORMAT = 1;
export const ROOT_MAGIC = Buffer.from('tape-version-v1', 'ascii');
/** The root of a version with rules: the same fields, then `u32 rules_len, rules` after settings. */
export const ROOT_MAGIC_RULES = Buffer.from('tape-version-v2', 'ascii');
export const MAX_LEVEL = 16;
export const MAX_SETTINGS_BYTES = 64 * 1024;
/** A node's entries; the shape rules keep real nodes far below it. */
const MAX_NODE_ENTRIES = 1 << 20;

const TREE_CODE: Record<TreeKind, number> = { names: 1, commits: 2 };
const LOCATION_CODE = { blob: 0, stream: 1, packed: 2 } as const;

export function nodeKey(node: TreeNode, index: number): Buffer {
  if ('branches' in node) return node.branches[index].key;
  if (node.tree === 'names') return Buffer.from(node.entries[index].name, 'utf8');
  return node.entries[index].commitment;
}

export function nodeLength(node: TreeNode): number {
  return 'branches' in node ? node.branches.length : node.entries.length;
}

/** Leaf entries under a node. */
export function nodeCount(node: TreeNode): number {
  if (!('branches' in node)) return node.entries.length;
  return node.branches.reduce((sum, b) => sum + b.count, 0);
}

export function encodeNode(node: TreeNode): Buffer {
  const w = new NodeWriter(nodeBytes(node));
  writeNode(w, node);
  return w.done();
}

export function encodeRoot(root: VersionRoot): Buffer {
  const withRules = root.rules.length > 0;
  const w = new NodeWriter(
    ROOT_MAGIC.length +
      20 +
      root.settings.length +
      (withRules ? 4 + root.rules.length : 0) +
      nodeBytes(root.names) +
      nodeBytes(root.commits),
  );
  w.bytes(withRules ? ROOT_MAGIC_RULES : ROOT_MAGIC)
    .u64(root.entryCount)
    .u64(root.totalSize);
  w.u32(root.settings.length).bytes(root.settings);
  if (withRules) w.u32(root.rules.length).bytes(root.rules);
  writeNode(w, root.names);
  writeNode(w, root.commits);
  return w.done();
}

/** The fixed part of a node: format, tree, level, count. */
export const NODE_HEADER_BYTES = 7;

/** A node's encoded length. */
export function nodeBytes(node: TreeNode): number {
  let sum = NODE_HEADER_BYTES;
  for (let i = 0; i < nodeLength(node); i++) sum += entryBytes(node, i);
  return sum;
}

/** The encoded length of one entry of a node: its share of the node's bytes. */
export function entryBytes(node: TreeNode, index: number): number {
  if ('branches' in node)
    return (node.tree === 'names' ? 2 + node.branches[index].key.length : 32) + 48;
  if (node.tree === 'names') {
    const e = node.entries[index];
    return (
      45 +
      Buffer.byteLength(e.name) +
      Buffer.byteLength(e.contentType) +
      e.metadata.length +
      locationBytes(e.location)
    );
  }
  const e = node.entries[index];
  return 41 + Buffer.byteLength(e.contentType) + locationBytes(e.location);
}

function locationBytes(loc: EntryLocation): number {
  return loc.kind === 'blob' ? 1 : loc.kind === 'stream' ? 9 : 49;
}

/** Decodes a stored node; throws VersionFormatError for anything but the one spelling. */
export function decodeNode(bytes: Buffer, expected: { tree: TreeKind; level: number }): TreeNode {
  return canonical(bytes, encodeNode, () => {
    const r = new ByteReader(bytes);
    const node = readNode(r);
    r.end();
    if (node.tree !== expected.tree || node.level !== expected.level) {
      throw new VersionFormatError(
        `expected a ${expected.tree} node of level ${expected.level}, found ${node.tree} level ${node.level}`,
      );
    }
    return node;
  });
}

export function decodeRoot(bytes: Buffer): VersionRoot {
  return canonical(bytes, encodeRoot, () => {
    const r = new ByteReader(bytes);
    const magic = r.bytes(ROOT_MAGIC.length);
    const withRules = magic.equals(ROOT_MAGIC_RULES);
    if (!withRules && !magic.equals(ROOT_MAGIC)) {
      throw new VersionFormatError('not a version root (bad magic)');
    }
    const entryCount = r.u64n();
    const totalSize = r.u64n();
    const settingsBytes = r.u32();
    if (settingsBytes > MAX_SETTINGS_BYTES) {
      throw new VersionFormatError(
        `settings of ${settingsBytes} bytes (at most ${MAX_SETTINGS_BYTES})`,
      );
    }
    const settings = r.bytes(settingsBytes);
    let rules: Buffer = Buffer.alloc(0);
    if (withRules) {
      // Empty rules are spelled without the field (ROOT_MAGIC): canonical() refuses this one.
      const rulesBytes = r.u32();
      if (rulesBytes > MAX_COMPILED_RULES_BYTES) {
        throw new VersionFormatError(
          `rules of ${rulesBytes} bytes (at most ${MAX_COMPILED_RULES_BYTES})`,
        );
      }
      rules = r.bytes(rulesBytes);
    }
    const names = readNode(r);
    const commits = readNode(r);
    r.end();
    if (names.tree !== 'names' || commits.tree !== 'commits') {
      throw new VersionFormatError('root trees out of order');
    }
    if (nodeCount(names) !== entryCount) {
      throw new VersionFormatError(
        `root counts ${entryCount} entries, its names tree ${nodeCount(names)}`,
      );
    }
    return { entryCount, totalSize, settings, rules, names, commits };
  });
}

function canonical<T>(bytes: Buffer, encode: (value: T) => Buffer, decode: () => T): T {
  let value: T;
  try {
    value = decode();
  } catch (err) {
    if (err instanceof LayoutError || err instanceof RangeError) {
      throw new VersionFormatError(`malformed version node: ${err.message}`);
    }
    throw err;
  }
  if (!encode(value).equals(bytes)) throw new VersionFormatError('non-canonical version node');
  return value;
}

/** Writes into one buffer of the length computed beforehand (no per-field allocation). */
class NodeWriter {
  private offset = 0;
  private readonly buf: Buffer;
  constructor(length: number) {
    this.buf = Buffer.allocUnsafe(length);
  }
  u8(v: number): this {
    this.offset = this.buf.writeUInt8(v, this.offset);
    return this;
  }
  u16(v: number): this {
    this.offset = this.buf.writeUInt16LE(v, this.offset);
    return this;
  }
  u32(v: number): this {
    this.offset = this.buf.writeUInt32LE(v, this.offset);
    return this;
  }
  u64(v: number): this {
    this.offset = this.buf.writeBigUInt64LE(BigInt(v), this.offset);
    return this;
  }
  bytes(b: Buffer): this {
    this.offset += b.copy(this.buf, this.offset);
    return this;
  }
  /** UTF-8 with a u8 or u16 length prefix; a string over the prefix is a RangeError. */
  str(text: string, lengthBytes: 1 | 2): this {
    const n = Buffer.byteLength(text);
    if (n > (lengthBytes === 1 ? 0xff : 0xffff))
      throw new RangeError(`string of ${n} bytes exceeds its length prefix`);
    if (lengthBytes === 1) this.u8(n);
    else this.u16(n);
    this.offset += this.buf.write(text, this.offset, 'utf8');
    return this;
  }
  done(): Buffer {
    if (this.offset !== this.buf.length)
      throw new Error(`node length ${this.offset}, computed ${this.buf.length}`);
    return this.buf;
  }
}

function writeNode(w: NodeWriter, node: TreeNode): void {
  w.u8(NODE_FORMAT).u8(TREE_CODE[node.tree]).u8(node.level).u32(nodeLength(node));
  if ('branches' in node) {
    for (const b of node.branches) {
      if (node.tree === 'names') w.u16(b.key.length).bytes(b.key);
      else w.bytes(b.key);
      w.bytes(b.child).u64(b.childBytes).u64(b.count);
    }
  } else if (node.tree === 'names') {
    for (const e of node.entries) {
      w.str(e.name, 2).bytes(e.commitment).u64(e.size).str(e.contentType, 1);
      w.u16(e.metadata.length).bytes(e.metadata);
      writeLocation(w, e.location);
    }
  } else {
    for (const e of node.entries) {
      w.bytes(e.commitment).u64(e.size).str(e.contentType, 1);
      writeLocation(w, e.location);
    }
  }
}

function writeLocation(w: NodeWriter, loc: EntryLocation): void {
  w.u8(LOCATION_CODE[loc.kind]);
  if (loc.kind === 'stream') w.u64(loc.manifestBytes);
  if (loc.kind === 'packed') w.bytes(loc.pack).u64(loc.packSize).u64(loc.offset);
}

function readNode(r: ByteReader): TreeNode {
  const format = r.u8();
  if (format !== NODE_FORMAT) throw new VersionFormatError(`unknown node format ${format}`);
  const treeCode = r.u8();
  const tree: TreeKind | undefined =
    treeCode === 1 ? 'names' : treeCode === 2 ? 'commits' : undefined;
  if (tree === undefined) throw new VersionFormatError(`unknown tree ${treeCode}`);
  const level = r.u8();
  if (level > MAX_LEVEL) throw new VersionFormatError(`level ${level} over ${MAX_LEVEL}`);
  const count = r.u32();
  if (count > MAX_NODE_ENTRIES) throw new VersionFormatError(`node of ${count} entries`);
  const node = level === 0 ? readLeaf(r, tree, count) : readBranch(r, tree, level, count);
  assertAscending(node);
  return node;
}

function readBranch(r: ByteReader, tree: TreeKind, level: number, count: number): TreeNode {
  if (count === 0) throw new VersionFormatError('empty branch');
  const branches: BranchEntry[] = [];
  for (let i = 0; i < count; i++) {
    const key = tree === 'names' ? r.bytes(r.u16()) : r.bytes(COMMITMENT_BYTES);
    if (tree === 'names' && (key.length === 0 || key.length > MAX_NAME_BYTES)) {
      throw new VersionFormatError('branch key out of range');
    }
    const child = r.bytes(COMMITMENT_BYTES);
    const childBytes = r.u64n();
    const leafCount = r.u64n();
    if (leafCount === 0) throw new VersionFormatError('branch entry over no entries');
    branches.push({ key, child, childBytes, count: leafCount });
  }
  return { tree, level, branches };
}

function readLeaf(r: ByteReader, tree: TreeKind, count: number): TreeNode {
  if (tree === 'names') {
    const entries: VersionEntry[] = [];
    for (let i = 0; i < count; i++) {
      const name = r.str(2);
      const commitment = r.bytes(COMMITMENT_BYTES);
      const size = r.u64n();
      const contentType = r.str(1);
      const metadataBytes = r.u16();
      if (metadataBytes > MAX_METADATA_BYTES) throw new VersionFormatError('metadata too long');
      const metadata = r.bytes(metadataBytes);
      const entry = { name, commitment, size, contentType, metadata, location: readLocation(r) };
      validateEntry(entry);
      entries.push(entry);
    }
    return { tree, level: 0, entries };
  }
  const entries: CommitEntry[] = [];
  for (let i = 0; i < count; i++) {
    const commitment = r.bytes(COMMITMENT_BYTES);
    const size = r.u64n();
    const contentType = r.str(1);
    if (Buffer.byteLength(contentType) > MAX_CONTENT_TYPE_BYTES)
      throw new VersionFormatError('content type too long');
    const location = readLocation(r);
    if (location.kind === 'packed' && location.offset + size > location.packSize) {
      throw new VersionFormatError('packed range passes the end of its pack');
    }
    entries.push({ commitment, size, contentType, location });
  }
  return { tree, level: 0, entries };
}

function readLocation(r: ByteReader): EntryLocation {
  const code = r.u8();
  if (code === LOCATION_CODE.blob) return { kind: 'blob' };
  if (code === LOCATION_CODE.stream) return { kind: 'stream', manifestBytes: r.u64n() };
  if (code === LOCATION_CODE.packed) {
    return {
      kind: 'packed',
      pack: r.bytes(COMMITMENT_BYTES),
      packSize: r.u64n(),
      offset: r.u64n(),
    };
  }
  throw new VersionFormatError(`unknown location kind ${code}`);
}

function assertAscending(node: TreeNode): void {
  for (let i = 1; i < nodeLength(node); i++) {
    if (Buffer.compare(nodeKey(node, i - 1), nodeKey(node, i)) >= 0) {
      throw new VersionFormatError('node keys not strictly ascending');
    }
  }
}
