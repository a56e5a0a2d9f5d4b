import { createHash } from 'node:crypto';
import { crc32 } from 'node:zlib';
import { drain, fakeRequest } from '../../../test/support/fakes/s3-fake-request';
import {
  oracleSignString,
  signWithHeader,
  TEST_SECRET,
} from '../../../test/support/clients/s3-signing';
import { openVerifiedBody } from './request-body';
import { S3Error } from '../s3-error';
import { checkSigV4Time, SigningKeyCache, SigV4Verified, verifySigV4 } from '../auth/sigv4';
import { EMPTY_SHA256, parseSigV4Claims, SigV4Request } from '../auth/sigv4-parse';

export const DATE = new Date('2026-03-01T12:00:00Z');
export const LIMITS = { maxBytes: 10 * 1024 * 1024, maxChunkBytes: 1024 * 1024 };

export function verified(
  request: SigV4Request,
  secret = TEST_SECRET,
  now = DATE.getTime(),
): SigV4Verified {
  const claims = parseSigV4Claims(request);
  if (!claims) throw new Error('unsigned');
  checkSigV4Time(claims, now);
  return verifySigV4(request, claims, secret, new SigningKeyCache());
}

export function headersOf(request: SigV4Request): Record<string, string> {
  const out: Record<string, string> = {};
  for (let i = 0; i < request.rawHeaders.length; i += 2)
    out[request.rawHeaders[i]] = request.rawHeaders[i + 1];
  return out;
}

export async function decode(
  request: SigV4Request,
  body: Buffer,
  options: { pieceSize?: number; abortAfter?: number; limits?: typeof LIMITS } = {},
): Promise<{ data?: Buffer; error?: Error; code?: string }> {
  const auth = verified(request);
  const req = fakeRequest(headersOf(request), body, options);
  let opened;
  try {
    opened = openVerifiedBody(req, auth, options.limits ?? LIMITS);
  } catch (error) {
    return { error: error as Error, code: (error as S3Error).code };
  }
  const result = await drain(opened.stream);
  return { ...result, code: result.error instanceof S3Error ? result.error.code : undefined };
}

export function crc32Base64(data: Buffer): string {
  const out = Buffer.alloc(4);
  out.writeUInt32BE(crc32(data));
  return out.toString('base64');
}

export const sha256 = (data: Buffer | string) => createHash('sha256').update(data).digest('hex');

/** Signs aws-chunked chunks the way AWS documents it, with the SDK's HMAC as the oracle. */
export async function signedChunks(
  seed: string,
  chunks: Buffer[],
  trailer?: string,
): Promise<Buffer> {
  return Buffer.concat(await signedChunkFrames(seed, chunks, trailer));
}

/** Each chunk framed with its signature (the final zero chunk and trailer last). */
export async function signedChunkFrames(
  seed: string,
  chunks: Buffer[],
  trailer?: string,
): Promise<Buffer[]> {
  const scope = '20260301/us-east-1/s3/aws4_request';
  let previous = seed;
  const parts: Buffer[] = [];
  for (const chunk of [...chunks, Buffer.alloc(0)]) {
    const toSign = [
      'AWS4-HMAC-SHA256-PAYLOAD',
      '20260301T120000Z',
      scope,
      previous,
      EMPTY_SHA256,
      sha256(chunk),
    ].join('\n');
    previous = await oracleSignString(toSign, DATE);
    const header = Buffer.from(`${chunk.length.toString(16)};chunk-signature=${previous}\r\n`);
    parts.push(Buffer.concat([header, chunk, Buffer.from(chunk.length > 0 ? '\r\n' : '')]));
  }
  if (trailer === undefined) {
    parts.push(Buffer.from('\r\n'));
  } else {
    const toSign = [
      'AWS4-HMAC-SHA256-TRAILER',
      '20260301T120000Z',
      scope,
      previous,
      sha256(`${trailer}\n`),
    ].join('\n');
    const signature = await oracleSignString(toSign, DATE);
    parts.push(Buffer.from(`${trailer}\r\nx-amz-trailer-signature:${signature}\r\n\r\n`));
  }
  return parts;
}

export function unsignedChunks(chunks: Buffer[], trailer: string): Buffer {
  const parts: Buffer[] = [];
  for (const chunk of chunks)
    parts.push(Buffer.from(`${chunk.length.toString(16)}\r\n`), chunk, Buffer.from('\r\n'));
  parts.push(Buffer.from(`0\r\n${trailer}\r\n\r\n`));
  return Buffer.concat(parts);
}

export async function streamingRequest(
  mode: string,
  decodedLength: number,
  extra: Record<string, string> = {},
) {
  return signWithHeader({
    method: 'PUT',
    path: '/b/k',
    headers: {
      'x-amz-content-sha256': mode,
      'content-encoding': 'aws-chunked',
      'x-amz-decoded-content-length': String(decodedLength),
      ...extra,
    },
    date: DATE,
  });
}

export const seedOf = (request: SigV4Request) => verified(request).seedSignature;
export const data = Buffer.from('x'.repeat(70000) + 'ünïcödé tail');
export const chunks = [data.subarray(0, 65536), data.subarray(65536)];
