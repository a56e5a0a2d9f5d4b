import { Keypair, PublicKey } from '@solana/web3.js';
import bs58 from 'bs58';
import { createPublicKey, verify } from 'node:crypto';
import nacl from 'tweetnacl';

/**
 * Upload requests (`PUT /upload/{track}`, docs/uploads.md) are signed by the tape's authority
 * or its delegate over the tape, the track, the commitment and size of the bytes sent, and a
 * fresh timestamp, so a captured request cannot be replayed later or for other bytes.
 */
export const UPLOAD_HEADERS = {
  signer: 'x-tape-signer',
  timestamp: 'x-tape-timestamp',
  signature: 'x-tape-signature',
  /** Present when the bytes are one segment of a manifest track: the segment's commitment. */
  segment: 'x-tape-segment',
} as const;

/** DER prefix of an Ed25519 SubjectPublicKeyInfo; the 32 key bytes follow. */
const ED25519_SPKI_PREFIX = Buffer.from('302a300506032b6570032100', 'hex');

/** How far a request's timestamp may be from the gateway's clock. */
export const UPLOAD_CLOCK_SKEW_MS = 5 * 60 * 1000;

export interface UploadClaim {
  tape: string;
  track: string;
  /** Commitment (hex) of the bytes in this request. */
  commitment: string;
  /** Size of the bytes in this request. */
  size: number;
  /** Unix milliseconds. */
  timestamp: number;
}

export function uploadMessage(c: UploadClaim): Buffer {
  return Buffer.from(
    ['tape-upload-v1', c.tape, c.track, c.commitment, String(c.size), String(c.timestamp)].join(
      '\n',
    ),
    'utf8',
  );
}

/** Headers for an upload request signed by `signer`. */
export function signUpload(
  claim: Omit<UploadClaim, 'timestamp'>,
  signer: Keypair,
  now = Date.now(),
): Record<string, string> {
  const full = { ...claim, timestamp: now };
  const signature = nacl.sign.detached(uploadMessage(full), signer.secretKey);
  return {
    [UPLOAD_HEADERS.signer]: signer.publicKey.toBase58(),
    [UPLOAD_HEADERS.timestamp]: String(now),
    [UPLOAD_HEADERS.signature]: bs58.encode(signature),
  };
}

export type UploadAuthFailure = 'malformed' | 'stale' | 'bad-signature';

/** Checks the signature and freshness; who may sign for the tape is the caller's check. */
export function verifyUpload(
  claim: Omit<UploadClaim, 'timestamp'>,
  headers: SignedHeaders,
  now = Date.now(),
): SignedCheck {
  return verifySigned(headers, (timestamp) => uploadMessage({ ...claim, timestamp }), now);
}

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
