import { PublicKey } from '@solana/web3.js';

const VERSION_PREFIX = 'version:';
const STAGING_PREFIX = 'staged:';
const ROOT_HEX = /^[0-9a-f]{64}$/;
const NUMBER = /^(0|[1-9][0-9]{0,15})$/;

/** A version owner: which tape kept which version root, and as which version number. */
export interface VersionOwner {
  /** The tape's address, base58. */
  tape: string;
  root: Buffer;
  /**
   * The version number the root was certified to become (the Publish's expected version + 1).
   * Undefined for owners recorded before owners carried it (`version:<tape>:<root hex>`).
   */
  version?: number;
}

/** A staging owner: the bytes uploaded for a tape while it was at `version`. */
export interface StagingOwner {
  tape: string;
  version: number;
}

/**
 * The owner under which the reference index records a certified version's tracks
 * (docs/tracks.md, "Garbage collection"): `version:<tape base58>:<version>:<root hex>`. It names
 * no account; the `:` (not a base58 character) tells it from a track account's address, so the
 * collector judges it against the tape's pointer instead of a track account. The tape is part of
 * the owner because two tapes may publish the same root and each keeps it on its own; the
 * version number makes the verdict exact: once the tape's version reaches it, the pointer says
 * for good whether this root is kept (no grace needed).
 */
export function versionOwner(tape: PublicKey | string, version: number, root: Buffer): string {
  return `${VERSION_PREFIX}${base58(tape)}:${version}:${root.toString('hex')}`;
}

/**
 * The owner of bytes uploaded for a tape at `version` (`PUT /upload/{tape}/{commitment}` and
 * the held bytes `POST /upload/{tape}/missing` reports): `staged:<tape base58>:<version>`. Dead
 * as soon as the tape's version passes it (what the published version needs is recorded under
 * its version owner when it is certified).
 */
export function stagingOwner(tape: PublicKey | string, version: number): string {
  return `${STAGING_PREFIX}${base58(tape)}:${version}`;
}

/** The tape, root and number a version owner names; undefined for any other owner. */
export function parseVersionOwner(owner: string): VersionOwner | undefined {
  if (!owner.startsWith(VERSION_PREFIX)) return undefined;
  const parts = owner.slice(VERSION_PREFIX.length).split(':');
  const [tape, ...rest] = parts;
  if (!isAddress(tape)) return undefined;
  if (rest.length === 1 && ROOT_HEX.test(rest[0])) {
    return { tape, root: Buffer.from(rest[0], 'hex') };
  }
  if (rest.length !== 2 || !NUMBER.test(rest[0]) || !ROOT_HEX.test(rest[1])) return undefined;
  return { tape, version: Number(rest[0]), root: Buffer.from(rest[1], 'hex') };
}

/** The tape and version a staging owner names; undefined for any other owner. */
export function parseStagingOwner(owner: string): StagingOwner | undefined {
  if (!owner.startsWith(STAGING_PREFIX)) return undefined;
  const [tape, version, ...rest] = owner.slice(STAGING_PREFIX.length).split(':');
  if (rest.length > 0 || !NUMBER.test(version ?? '') || !isAddress(tape)) return undefined;
  return { tape, version: Number(version) };
}

function base58(tape: PublicKey | string): string {
  return typeof tape === 'string' ? tape : tape.toBase58();
}

function isAddress(text: string): boolean {
  try {
    return new PublicKey(text).toBase58() === text;
  } catch {
    return false;
  }
}
