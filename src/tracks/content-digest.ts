import { createHash } from 'node:crypto';

/**
 * RFC 9530 `Content-Digest` of a whole body in memory: `sha-256=:<base64>:`. Sent on whole
 * identity answers only (docs/verify.md, "Headers"): a range or a compressed body has other bytes.
 */
export function contentDigest(body: Buffer): string {
  return `sha-256=:${createHash('sha256').update(body).digest('base64')}:`;
}
