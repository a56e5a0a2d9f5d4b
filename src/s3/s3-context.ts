import type { IncomingMessage } from 'node:http';
import type { Readable } from 'node:stream';
import type { S3Address } from './s3-address';
import type { S3Bucket } from './s3-backend';
import type { S3Credential } from './s3-credential-store';
import type { S3OperationName } from './s3-operation';
import type { SigV4Verified } from './auth/sigv4';

/** One authenticated, authorised request as the operation handlers see it. */
export interface S3RequestContext {
  requestId: string;
  operation: S3OperationName;
  address: S3Address;
  raw: IncomingMessage;
  /** Content-Type as the client sent it (kept away from Fastify's media-type parsing). */
  contentType: string | undefined;
  auth: SigV4Verified;
  credential: S3Credential;
  /** Set for every bucket-level and object-level operation (already checked against the credential). */
  bucket?: S3Bucket;
  /** `http://host` the client addressed, for Location fields. */
  origin: string;
  /**
   * Sends `100 Continue` to a client waiting for it (Expect: 100-continue). Called only when the
   * backend starts reading the body, so a refused upload is answered before a byte is sent.
   */
  sendContinue: () => void;
}

/** What a handler answers; the listener writes it (and drops the body for HEAD). */
export interface S3Response {
  status: number;
  headers?: Record<string, string>;
  body?: string | Readable;
}

export const XML_CONTENT_TYPE = 'application/xml';

export function xmlResponse(
  body: string,
  status = 200,
  headers: Record<string, string> = {},
): S3Response {
  return { status, headers: { 'content-type': XML_CONTENT_TYPE, ...headers }, body };
}

export function bucketOf(ctx: S3RequestContext): S3Bucket {
  if (!ctx.bucket) throw new Error(`${ctx.operation} needs a bucket`);
  return ctx.bucket;
}

export function keyOf(ctx: S3RequestContext): string {
  if (ctx.address.key === undefined) throw new Error(`${ctx.operation} needs a key`);
  return ctx.address.key;
}
