import { randomBytes, randomInt } from 'node:crypto';

/** An issued credential with its plain secret (SigV4 needs it to recompute signatures). */
export interface Credential {
  accessKeyId: string;
  secretAccessKey: string;
  /** The only tape (bucket) this credential may touch. */
  tapeAddress: string;
  revoked: boolean;
}

/** A credential as the operator sees it: never the secret. */
export interface CredentialSummary {
  accessKeyId: string;
  tapeAddress: string;
  createdAt: Date;
  revokedAt: Date | null;
}

export interface IssuedCredential extends CredentialSummary {
  secretAccessKey: string;
}

export type RevokeOutcome = 'revoked' | 'already revoked' | 'unknown';

/** `TK` + 18 characters of RFC 4648 base32: 20 characters, the shape of an AWS key id. */
const ACCESS_KEY_ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';
export const ACCESS_KEY_ID_PATTERN = /^TK[A-Z2-7]{18}$/;

export function newAccessKeyId(): string {
  let id = 'TK';
  for (let i = 0; i < 18; i++) id += ACCESS_KEY_ALPHABET[randomInt(ACCESS_KEY_ALPHABET.length)];
  return id;
}

/** 30 random bytes: 40 base64 characters, like an AWS secret access key. */
export function newSecretAccessKey(): string {
  return randomBytes(30).toString('base64');
}

/**
 * Port: where S3 credentials live, shared by the operator commands (`tape gateway
 * credentials …`, which issue, list and revoke) and the S3 endpoint (which looks one up on every
 * request, uncached, so a revocation applies from the next request). Secrets are sealed at rest
 * with the operator key (credential-cipher.ts) in every implementation: SQLite in the data
 * directory (one gateway), or the shared Redis (replicas; docs/operator.md, "Scaling out").
 */
export abstract class CredentialRegistry {
  abstract issue(tapeAddress: string, now?: Date): Promise<IssuedCredential>;
  abstract list(): Promise<CredentialSummary[]>;
  abstract revoke(accessKeyId: string, now?: Date): Promise<RevokeOutcome>;
  /** The credential with its plain secret, or null when never issued. */
  abstract find(accessKeyId: string): Promise<Credential | null>;
  abstract close(): Promise<void>;
}
