import { COMMITMENT_BYTES } from '../tracks/commitment';
import { isHiddenName, isWellKnownName } from '../chain/hidden-names';

/**
 * One name of a site version (docs/versions.md, "Entries"): what a visitor asks for, the bytes'
 * own commitment (the ETag, kept across deploys while the bytes are unchanged), and where the
 * bytes are.
 */
export interface VersionEntry {
  /**
   * UTF-8, 1..MAX_NAME_BYTES bytes, no hidden segment but `.well-known/` (whose names only a
   * gateway's allow list certifies and serves), no NUL (any S3 key otherwise).
   */
  name: string;
  /** The file's own commitment (tape-track-v1 of its bytes; of its segment manifest when streamed). */
  commitment: Buffer;
  /** The file's size in bytes. */
  size: number;
  contentType: string;
  /** Opaque to the version (S3 keeps headers and checksums here); empty when none. */
  metadata: Buffer;
  location: EntryLocation;
}

/**
 * Where the bytes are:
 * - `blob`: a track of their own, whose commitment is the entry's;
 * - `stream`: a segment manifest track (the entry's commitment, `manifestBytes` long) listing
 *   segment tracks;
 * - `packed`: a byte range of a pack track, verified through the pack's own chunk hashes.
 */
export type EntryLocation =
  | { kind: 'blob' }
  | { kind: 'stream'; manifestBytes: number }
  | { kind: 'packed'; pack: Buffer; packSize: number; offset: number };

export const MAX_NAME_BYTES = 1024;
export const MAX_CONTENT_TYPE_BYTES = 255;
export const MAX_METADATA_BYTES = 1024;

/** A UTF-16 surrogate without its pair: a string no UTF-8 byte sequence spells. */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

export class VersionFormatError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'VersionFormatError';
  }
}

/**
 * Why a name can never be part of a version, or undefined when it can: the rule the certifier
 * applies to every entry and every reader applies to every path it looks up.
 *
 * Empty segments (`dir/`, `a//b`, `/a`) and backslashes are allowed: they are ordinary S3 keys
 * (folder markers that the S3 console, s3fs and Hadoop's S3A write are `dir/`), the names tree is
 * keyed by the whole name so they mean nothing to its shape, and no site path reaches them
 * (`parseSitePath` refuses `//` and backslashes and maps `dir/` to `dir/index.html`).
 *
 * `.well-known/<visible name>` is the one hidden form the format holds: whether a version may
 * carry such a name is the certifying gateway's policy (`gateway.site.well_known_allow`,
 * version-certifier.ts), and whether it is served, each reader's.
 */
export function nameProblem(name: string): string | undefined {
  const bytes = Buffer.byteLength(name, 'utf8');
  if (bytes === 0) return 'empty name';
  if (bytes > MAX_NAME_BYTES) return `name of ${bytes} bytes (at most ${MAX_NAME_BYTES})`;
  if (LONE_SURROGATE.test(name)) return 'name is not valid UTF-8';
  if (isHiddenName(name) && !isWellKnownName(name))
    return 'hidden name (a segment starts with ".")';
  if (name.includes('\0')) return 'NUL in name';
  return undefined;
}

/** Checks one entry's fields; throws VersionFormatError naming the entry and the rule. */
export function validateEntry(entry: VersionEntry): void {
  const problem = nameProblem(entry.name);
  const where = JSON.stringify(entry.name.slice(0, 200));
  if (problem !== undefined) throw new VersionFormatError(`${where}: ${problem}`);
  if (entry.commitment.length !== COMMITMENT_BYTES) {
    throw new VersionFormatError(`${where}: commitment is not ${COMMITMENT_BYTES} bytes`);
  }
  if (!Number.isSafeInteger(entry.size) || entry.size < 0) {
    throw new VersionFormatError(`${where}: size is not a non-negative safe integer`);
  }
  if (Buffer.byteLength(entry.contentType, 'utf8') > MAX_CONTENT_TYPE_BYTES) {
    throw new VersionFormatError(`${where}: content type over ${MAX_CONTENT_TYPE_BYTES} bytes`);
  }
  if (entry.metadata.length > MAX_METADATA_BYTES) {
    throw new VersionFormatError(`${where}: metadata over ${MAX_METADATA_BYTES} bytes`);
  }
  const loc = entry.location;
  if (
    loc.kind === 'stream' &&
    (!Number.isSafeInteger(loc.manifestBytes) || loc.manifestBytes < 1)
  ) {
    throw new VersionFormatError(`${where}: segment manifest length out of range`);
  }
  if (loc.kind === 'packed') {
    if (loc.pack.length !== COMMITMENT_BYTES) {
      throw new VersionFormatError(`${where}: pack commitment is not ${COMMITMENT_BYTES} bytes`);
    }
    if (
      !Number.isSafeInteger(loc.offset) ||
      loc.offset < 0 ||
      !Number.isSafeInteger(loc.packSize)
    ) {
      throw new VersionFormatError(`${where}: pack offset or size out of range`);
    }
    if (loc.offset + entry.size > loc.packSize) {
      throw new VersionFormatError(`${where}: packed range passes the end of its pack`);
    }
  }
}

/** Byte order of UTF-8 names: the order of every node and of S3 listings. */
export function compareNames(a: string, b: string): number {
  return Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8'));
}
