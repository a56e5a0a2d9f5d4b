import { PublicKey } from '@solana/web3.js';

const PREFIX = 'version:';
const ROOT_HEX = /^[0-9a-f]{64}$/;

/** A version owner: which tape kept which version root. */
export interface VersionOwner {
  /** The tape's address, base58. */
  tape: string;
  root: Buffer;
}

/**
 * The owner under which the reference index records a certified version's tracks
 * (docs/tracks.md, "Garbage collection"): `version:<tape base58>:<root hex>`. It names no
 * account; the `:` (not a base58 character) tells it from a track account's address, so the
 * collector judges it against the tape's kept versions instead of a track account. The tape is
 * part of the owner because two tapes may publish the same root and each keeps it on its own.
 */
export function versionOwner(tape: PublicKey | string, root: Buffer): string {
  const address = typeof tape === 'string' ? tape : tape.toBase58();
  return `${PREFIX}${address}:${root.toString('hex')}`;
}

/** The tape and root a version owner names; undefined for any other owner (an account address). */
export function parseVersionOwner(owner: string): VersionOwner | undefined {
  if (!owner.startsWith(PREFIX)) return undefined;
  const [tape, rootHex, ...rest] = owner.slice(PREFIX.length).split(':');
  if (rest.length > 0 || !ROOT_HEX.test(rootHex ?? '') || !isAddress(tape)) return undefined;
  return { tape, root: Buffer.from(rootHex, 'hex') };
}

function isAddress(text: string): boolean {
  try {
    return new PublicKey(text).toBase58() === text;
  } catch {
    return false;
  }
}
