import { createHash } from 'node:crypto';

/**
 * Messages the writer requests of versions sign (docs/uploads.md, "Version bytes"). Each names
 * its route, so a signature for one request is never valid for another; the signature headers
 * and their check are the uploads' own (`verifySigned`, upload-auth.ts).
 */

/** `PUT /upload/{tape}/{commitment}`: the bytes of one track, staged for the tape's next version. */
export function versionUploadMessage(c: {
  tape: string;
  commitment: string;
  size: number;
  timestamp: number;
}): Buffer {
  return Buffer.from(
    ['tape-upload-v2', c.tape, c.commitment, String(c.size), String(c.timestamp)].join('\n'),
    'utf8',
  );
}

/** The JSON requests of versions, signed over the SHA-256 of their exact body bytes. */
export type SignedRoute = 'missing' | 'publish';

export function requestMessage(c: {
  route: SignedRoute;
  tape: string;
  body: Buffer;
  timestamp: number;
}): Buffer {
  const digest = createHash('sha256').update(c.body).digest('hex');
  return Buffer.from(
    ['tape-request-v1', c.route, c.tape, digest, String(c.timestamp)].join('\n'),
    'utf8',
  );
}
