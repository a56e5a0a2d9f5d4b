import { OBJECT_CSP } from '../http/raw-content-policy';
/**
 * Response headers of `GET /object/{track}` (spec 4.1; docs/object.md). Built once per track and
 * kept with its cached chain record, so a hot request copies a ready object instead of
 * formatting strings.
 */
export const OBJECT_CACHE_CONTROL = 'public, max-age=31536000, immutable';
/** Refusals may change (a track gets certified, a tape extended): never cached. */
export const ERROR_CACHE_CONTROL = 'no-store';

const FALLBACK_CONTENT_TYPE = 'application/octet-stream';
/** Printable ASCII only: the type comes from the chain and must not break the header block. */
const SAFE_CONTENT_TYPE = /^[\x21-\x7e][\x20-\x7e]{0,254}$/;

/**
 * Objects are public, immutable and cookie-less (CORS `*` too): any page may embed them,
 * including pages isolated with Cross-Origin-Embedder-Policy.
 */
export const OBJECT_CORP = 'cross-origin';

/** Headers a cross-origin script may read (the simple ones are readable anyway). */
const EXPOSED =
  'Content-Length, Content-Range, ETag, Accept-Ranges, X-Tape-Version, X-Tape-Commitment, Content-Digest';

export type HeaderSet = Readonly<Record<string, string>>;

export interface ObjectHeaders {
  /** Headers of a 200/206 answer, without Content-Length (per response). */
  representation: HeaderSet;
  /** Headers of a 304 answer (RFC 9110 §15.4.5: the validators and caching headers). */
  notModified: HeaderSet;
  /** The sanitised content type, for multipart parts. */
  contentType: string;
}

/** The Content-Type to send for a chain record's content type. */
export function contentTypeFor(recorded: string): string {
  return SAFE_CONTENT_TYPE.test(recorded) ? recorded : FALLBACK_CONTENT_TYPE;
}

export function objectHeaders(
  recordedContentType: string,
  etag: string,
  served?: { version: number; commitmentHex: string },
): ObjectHeaders {
  const contentType = contentTypeFor(recordedContentType);
  // Which version answered and the entry's commitment (docs/verify.md, "Headers").
  const proof: Record<string, string> = served
    ? { 'x-tape-version': String(served.version), 'x-tape-commitment': served.commitmentHex }
    : {};
  const shared = {
    etag,
    ...proof,
    'cache-control': OBJECT_CACHE_CONTROL,
    'accept-ranges': 'bytes',
    'x-content-type-options': 'nosniff',
    'content-security-policy': OBJECT_CSP,
    'cross-origin-resource-policy': OBJECT_CORP,
    // Objects are public and immutable and the gateway sets no cookies: any page may read them.
    'access-control-allow-origin': '*',
    'access-control-expose-headers': EXPOSED,
  };
  return {
    representation: Object.freeze({ 'content-type': contentType, ...shared }),
    notModified: Object.freeze(shared),
    contentType,
  };
}
