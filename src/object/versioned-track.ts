import { PublicKey } from '@solana/web3.js';
import bs58 from 'bs58';
import { COMMITMENT_BYTES } from '../tracks/commitment';

/**
 * The track address of a file of a published version (docs/object.md, "Objects of versions"):
 * base58 of the 64 bytes tape || commitment. Self-describing, so any gateway resolves it from
 * the tape's pointer and the version's commits tree, with no account per file and no
 * program-wide listing; it can never equal a 32-byte account address.
 */
export interface VersionedTrack {
  tape: string;
  commitment: Buffer;
}

/** base58 of 64 bytes is 87 or 88 characters (fewer only with leading zero bytes). */
const MIN_CHARS = 64;
const MAX_CHARS = 88;

export function versionedTrackAddress(tape: PublicKey | string, commitment: Buffer): string {
  const key = typeof tape === 'string' ? new PublicKey(tape) : tape;
  return bs58.encode(Buffer.concat([key.toBuffer(), commitment]));
}

/** The tape and commitment a versioned track address names, or null; canonical spelling only. */
export function parseVersionedTrack(text: string): VersionedTrack | null {
  if (text.length < MIN_CHARS || text.length > MAX_CHARS) return null;
  let bytes: Uint8Array;
  try {
    bytes = bs58.decode(text);
  } catch {
    return null;
  }
  if (bytes.length !== 32 + COMMITMENT_BYTES || bs58.encode(bytes) !== text) return null;
  const raw = Buffer.from(bytes);
  return {
    tape: new PublicKey(raw.subarray(0, 32)).toBase58(),
    commitment: Buffer.from(raw.subarray(32)),
  };
}
