import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import { S3Error } from '../s3-error';
import { canonicalCandidates, canonicalHeaders } from './sigv4-canonical';
import {
  isoBasicToMillis,
  SIGV4_ALGORITHM,
  SigV4Claims,
  SigV4Request,
  SigV4Scope,
} from './sigv4-parse';

/** AWS allows 15 minutes between the request's date and the server's clock. */
export const MAX_CLOCK_SKEW_MS = 15 * 60 * 1000;

/** What a verified signature hands to the payload decoder (aws-chunked signatures chain on it). */
export interface SigV4Verified {
  claims: SigV4Claims;
  signingKey: Buffer;
  /** `date/region/service/aws4_request`. */
  scopeString: string;
  /** The request's own signature: the seed of chunk signatures. */
  seedSignature: string;
}

/**
 * Signing keys are HMAC chains over (secret, date, region, service) and change once a day, so a
 * small cache saves four HMACs per request.
 */
export class SigningKeyCache {
  private readonly keys = new Map<string, Buffer>();

  constructor(private readonly capacity = 512) {}

  get(secret: string, scope: SigV4Scope): Buffer {
    const id = `${scope.date}\n${scope.region}\n${scope.service}\n${secret}`;
    const cached = this.keys.get(id);
    if (cached) return cached;
    const dateKey = hmac(Buffer.from(`AWS4${secret}`, 'utf8'), scope.date);
    const regionKey = hmac(dateKey, scope.region);
    const serviceKey = hmac(regionKey, scope.service);
    const key = hmac(serviceKey, 'aws4_request');
    if (this.keys.size >= this.capacity) this.keys.delete(this.keys.keys().next().value as string);
    this.keys.set(id, key);
    return key;
  }
}

/** Refuses requests whose date is too far from now, and presigned URLs out of their window. */
export function checkSigV4Time(claims: SigV4Claims, nowMs: number): void {
  const requestMs = isoBasicToMillis(claims.timestamp);
  const serverTime = new Date(nowMs).toISOString();
  if (claims.kind === 'header') {
    if (Math.abs(nowMs - requestMs) > MAX_CLOCK_SKEW_MS) {
      throw new S3Error(
        'RequestTimeTooSkewed',
        'the difference between the request time and the current time is too large',
        {
          RequestTime: claims.timestamp,
          ServerTime: serverTime,
          MaxAllowedSkewMilliseconds: String(MAX_CLOCK_SKEW_MS),
        },
      );
    }
    return;
  }
  if (requestMs - nowMs > MAX_CLOCK_SKEW_MS) {
    throw new S3Error('AccessDenied', 'request is not valid yet (X-Amz-Date is in the future)', {
      ServerTime: serverTime,
    });
  }
  const expiresMs = requestMs + (claims.expiresSecs ?? 0) * 1000;
  // X-Amz-Expires=0: a URL that was never valid is expired, as on S3 (403, not 400).
  if (nowMs > expiresMs || claims.expiresSecs === 0) {
    throw new S3Error('AccessDenied', 'request has expired', {
      'X-Amz-Expires': String(claims.expiresSecs),
      Expires: new Date(expiresMs).toISOString(),
      ServerTime: serverTime,
    });
  }
}

/**
 * Recomputes the signature with the credential's secret and compares in constant time. Every
 * `x-amz-*` header present must be signed, as on AWS: otherwise a captured request could be
 * replayed with, say, an `x-amz-copy-source` added.
 */
export function verifySigV4(
  request: SigV4Request,
  claims: SigV4Claims,
  secret: string,
  keys: SigningKeyCache,
): SigV4Verified {
  const unsigned = unsignedAmzHeaders(request.rawHeaders, claims.signedHeaders);
  if (unsigned.length > 0) {
    throw new S3Error(
      'AccessDenied',
      'there were headers present in the request which were not signed',
      {
        HeadersNotSigned: unsigned.join(', '),
      },
    );
  }
  const signingKey = keys.get(secret, claims.scope);
  const scopeString = `${claims.scope.date}/${claims.scope.region}/${claims.scope.service}/aws4_request`;
  const headersBlock = canonicalHeaders(request.rawHeaders, claims.signedHeaders);
  const omit = claims.kind === 'presigned' ? 'X-Amz-Signature' : undefined;
  const given = Buffer.from(claims.signature, 'hex');
  let first: { canonicalRequest: string; stringToSign: string } | undefined;
  for (const candidate of canonicalCandidates(request.rawPath, request.rawQuery, omit)) {
    const canonicalRequest = [
      request.method,
      candidate.uri,
      candidate.query,
      headersBlock,
      claims.signedHeaders.join(';'),
      claims.payloadHash,
    ].join('\n');
    const stringToSign = [
      SIGV4_ALGORITHM,
      claims.timestamp,
      scopeString,
      sha256Hex(canonicalRequest),
    ].join('\n');
    first ??= { canonicalRequest, stringToSign };
    const expected = createHmac('sha256', signingKey).update(stringToSign, 'utf8').digest();
    if (timingSafeEqual(expected, given)) {
      return { claims, signingKey, scopeString, seedSignature: claims.signature };
    }
  }
  throw new S3Error(
    'SignatureDoesNotMatch',
    'the request signature we calculated does not match the signature you provided; check your secret access key and signing method',
    {
      AWSAccessKeyId: claims.accessKeyId,
      StringToSign: first?.stringToSign ?? '',
      CanonicalRequest: first?.canonicalRequest ?? '',
    },
  );
}

/** `AWS4-HMAC-SHA256-PAYLOAD` string-to-sign of one aws-chunked chunk. */
export function chunkSignature(
  verified: Pick<SigV4Verified, 'signingKey' | 'scopeString' | 'claims'>,
  previousSignature: string,
  chunkSha256Hex: string,
): string {
  const stringToSign = [
    'AWS4-HMAC-SHA256-PAYLOAD',
    verified.claims.timestamp,
    verified.scopeString,
    previousSignature,
    EMPTY_SHA256_HEX,
    chunkSha256Hex,
  ].join('\n');
  return createHmac('sha256', verified.signingKey).update(stringToSign, 'utf8').digest('hex');
}

/** `AWS4-HMAC-SHA256-TRAILER` string-to-sign over the canonical trailer lines. */
export function trailerSignature(
  verified: Pick<SigV4Verified, 'signingKey' | 'scopeString' | 'claims'>,
  previousSignature: string,
  canonicalTrailers: string,
): string {
  const stringToSign = [
    'AWS4-HMAC-SHA256-TRAILER',
    verified.claims.timestamp,
    verified.scopeString,
    previousSignature,
    sha256Hex(canonicalTrailers),
  ].join('\n');
  return createHmac('sha256', verified.signingKey).update(stringToSign, 'utf8').digest('hex');
}

/** Constant-time comparison of two lower-case hex signatures. */
export function signaturesEqual(expectedHex: string, givenHex: string): boolean {
  if (!/^[0-9a-f]{64}$/.test(givenHex)) return false;
  return timingSafeEqual(Buffer.from(expectedHex, 'hex'), Buffer.from(givenHex, 'hex'));
}

/**
 * Hashes text whose characters stand for the bytes that arrived: Node decodes header values as
 * latin1, so encoding them back as latin1 reproduces what the client hashed (UTF-8 included);
 * everything else in a canonical request is ASCII.
 */
export function sha256Hex(wireText: string): string {
  return createHash('sha256').update(wireText, 'latin1').digest('hex');
}

const EMPTY_SHA256_HEX = sha256Hex('');

function hmac(key: Buffer, data: string): Buffer {
  return createHmac('sha256', key).update(data, 'utf8').digest();
}

function unsignedAmzHeaders(rawHeaders: string[], signed: string[]): string[] {
  const out = new Set<string>();
  for (let i = 0; i < rawHeaders.length; i += 2) {
    const name = rawHeaders[i].toLowerCase();
    if (name.startsWith('x-amz-') && !signed.includes(name)) out.add(name);
  }
  return [...out];
}
