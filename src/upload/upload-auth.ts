import { PublicKey } from '@solana/web3.js';
import bs58 from 'bs58';
import { createPublicKey, verify } from 'node:crypto';

/**
 * Writer requests (`PUT /upload/{tape}/{commitment}`, `POST /upload/{tape}/missing`,
 * `POST /publish/{tape}`; docs/uploads.md) are signed by the tape's authority or its delegate
 * over what the request does (version-request-auth.ts builds each message) and a fresh
 * timestamp, so a captured request cannot be replayed later or for other bytes.
 */
export const UPLOAD_HEADERS = {
  signer: 'x-tape-signer',
  timestamp: 'x-tape-timestamp',
  signature: 'x-tape-signature',
} as const;

/** DER prefix of an Ed25519 SubjectPublicKeyInfo; the 32 key bytes follow. */
const ED25519_SPKI_PREFIX = Buffer.from('302a300506032b6570032100', 'hex');

/** How far a request's timestamp may be from the gateway's clock. */
export const UPLOAD_CLOCK_SKEW_MS = 5 * 60 * 1000;

export type UploadAuthFailure = 'malformed' | 'stale' | 'bad-signature';

/** The signature headers of a request, as the edge read them. */
export interface SignedHeaders {
  signer?: string;
  timestamp?: string;
  signature?: string;
}

export type SignedCheck =
  { ok: true; signer: PublicKey } | { ok: false; reason: UploadAuthFailure };

/**
 * The one check of every signed writer request (uploads, version uploads, publish): the
 * headers' form, the timestamp within the skew, and the Ed25519 signature over the message the
 * route builds for that timestamp.
 */
export function verifySigned(
  headers: SignedHeaders,
  messageAt: (timestamp: number) => Buffer,
  now = Date.now(),
): SignedCheck {
  const { signer, timestamp, signature } = headers;
  if (!signer || !timestamp || !signature || !/^\d{1,16}$/.test(timestamp)) {
    return { ok: false, reason: 'malformed' };
  }
  let key: PublicKey;
  let sig: Uint8Array;
  try {
    key = new PublicKey(signer);
    sig = bs58.decode(signature);
  } catch {
    return { ok: false, reason: 'malformed' };
  }
  if (sig.length !== 64) return { ok: false, reason: 'malformed' };
  const ts = Number(timestamp);
  if (Math.abs(now - ts) > UPLOAD_CLOCK_SKEW_MS) return { ok: false, reason: 'stale' };
  // Node's native Ed25519 verifies in microseconds; tweetnacl takes milliseconds per upload.
  const publicKey = createPublicKey({
    key: Buffer.concat([ED25519_SPKI_PREFIX, key.toBuffer()]),
    format: 'der',
    type: 'spki',
  });
  if (!verify(null, messageAt(ts), publicKey, sig)) {
    return { ok: false, reason: 'bad-signature' };
  }
  return { ok: true, signer: key };
}
