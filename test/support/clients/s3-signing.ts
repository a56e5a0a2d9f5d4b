import { Sha256 } from '@aws-crypto/sha256-js';
import { SignatureV4 } from '@smithy/signature-v4';
import type { SigV4Request } from '../../../src/s3/auth/sigv4-parse';

/**
 * The signing side of the AWS SDK (@smithy/signature-v4) as an independent oracle for the
 * server-side verifier: requests are signed exactly as the SDK signs them for S3.
 */
export const TEST_ACCESS_KEY_ID = 'AKIDTAPETEST000001';
export const TEST_SECRET = 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYTAPEKEY';

export function oracleSigner(secret = TEST_SECRET, accessKeyId = TEST_ACCESS_KEY_ID): SignatureV4 {
  return new SignatureV4({
    service: 's3',
    region: 'us-east-1',
    credentials: { accessKeyId, secretAccessKey: secret },
    sha256: Sha256,
    // S3 signs the path encoded once, as sent: the S3 client pre-encodes keys and disables this.
    uriEscapePath: false,
  });
}

/** How the S3 client encodes a key segment in the path (encodeURIComponent plus !'()*). */
export function encodeKeySegment(segment: string): string {
  return encodeURIComponent(segment).replace(
    /[!'()*]/g,
    (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`,
  );
}

export function encodeKeyPath(bucket: string, key: string): string {
  return `/${bucket}/${key.split('/').map(encodeKeySegment).join('/')}`;
}

/** The query string as the SDK puts it on the wire. */
export function wireQuery(query: Record<string, string>): string {
  return Object.keys(query)
    .sort()
    .map((k) => `${encodeKeySegment(k)}=${encodeKeySegment(query[k])}`)
    .join('&');
}

export interface OracleRequest {
  method: string;
  path: string;
  query?: Record<string, string>;
  headers?: Record<string, string>;
  host?: string;
  date: Date;
  secret?: string;
  accessKeyId?: string;
}

interface SignedShape {
  method: string;
  path: string;
  query?: Record<string, string | string[] | null>;
  headers: Record<string, string>;
}

function toSigV4Request(signed: SignedShape): SigV4Request {
  const query: Record<string, string> = {};
  for (const [k, v] of Object.entries(signed.query ?? {})) query[k] = String(v ?? '');
  return {
    method: signed.method,
    rawPath: signed.path,
    rawQuery: wireQuery(query),
    rawHeaders: Object.entries(signed.headers).flat(),
  };
}

function baseRequest(r: OracleRequest) {
  const host = r.host ?? '127.0.0.1:9000';
  const [hostname, port] = host.split(':');
  return {
    method: r.method,
    protocol: 'http:',
    hostname,
    port: port ? Number(port) : undefined,
    path: r.path,
    query: r.query ?? {},
    headers: { host, ...(r.headers ?? {}) },
  };
}

/** Signs with the Authorization header. */
export async function signWithHeader(r: OracleRequest): Promise<SigV4Request> {
  const signed = (await oracleSigner(r.secret, r.accessKeyId).sign(baseRequest(r), {
    signingDate: r.date,
  })) as unknown as SignedShape;
  return toSigV4Request(signed);
}

/** Signs into the query (a presigned URL). */
export async function presign(r: OracleRequest, expiresIn: number): Promise<SigV4Request> {
  // As @aws-sdk/s3-request-presigner does: the body of a presigned request is unsigned.
  const request = baseRequest({
    ...r,
    headers: { ...r.headers, 'x-amz-content-sha256': 'UNSIGNED-PAYLOAD' },
  });
  const signed = (await oracleSigner(r.secret, r.accessKeyId).presign(request, {
    signingDate: r.date,
    expiresIn,
  })) as unknown as SignedShape;
  return toSigV4Request(signed);
}

/** HMAC of an arbitrary string-to-sign with the SDK's own signing-key derivation. */
export async function oracleSignString(
  stringToSign: string,
  date: Date,
  secret = TEST_SECRET,
): Promise<string> {
  return oracleSigner(secret).sign(stringToSign, { signingDate: date });
}
