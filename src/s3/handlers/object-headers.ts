import type { IncomingHttpHeaders } from 'node:http';
import { OBJECT_CSP } from '../../http/raw-content-policy';
import type { S3ObjectHead } from '../s3-backend';
import { S3Error } from '../s3-error';
import { quoteEtag } from '../xml/s3-xml-responses';
import { unquoteEtag } from '../http-header';

/** S3's limit on user-defined metadata (names and values of x-amz-meta-*), in bytes. */
export const MAX_USER_METADATA_BYTES = 2048;
const META_PREFIX = 'x-amz-meta-';

/** `x-amz-meta-*` request headers by lowercase name without the prefix. */
export function readUserMetadata(headers: IncomingHttpHeaders): Record<string, string> {
  const metadata: Record<string, string> = {};
  let bytes = 0;
  for (const [name, value] of Object.entries(headers)) {
    if (!name.startsWith(META_PREFIX) || value === undefined) continue;
    const text = Array.isArray(value) ? value.join(',') : value;
    const short = name.slice(META_PREFIX.length);
    bytes += Buffer.byteLength(short) + Buffer.byteLength(text);
    metadata[short] = text;
  }
  if (bytes > MAX_USER_METADATA_BYTES) {
    throw new S3Error(
      'MetadataTooLarge',
      `your metadata headers exceed the maximum allowed metadata size (${MAX_USER_METADATA_BYTES} bytes)`,
    );
  }
  return metadata;
}

/** `response-*` query parameters a (presigned) GET may use to override response headers. */
const RESPONSE_OVERRIDES: Record<string, string> = {
  'response-content-type': 'content-type',
  'response-content-language': 'content-language',
  'response-expires': 'expires',
  'response-cache-control': 'cache-control',
  'response-content-disposition': 'content-disposition',
  'response-content-encoding': 'content-encoding',
};

/**
 * Every S3 GET/HEAD answer is a sandboxed document (as on `/object`, src/object/object-headers.ts):
 * path-style buckets share the S3 listener's origin, so an HTML or SVG object opened from a
 * presigned link must run no script there. nosniff keeps a browser from guessing a type that
 * would run. SDKs and sync tools ignore both headers.
 */
const ISOLATION_HEADERS: Readonly<Record<string, string>> = {
  'content-security-policy': OBJECT_CSP,
  'x-content-type-options': 'nosniff',
};

/**
 * The headers of a GetObject/HeadObject answer: the object's own, then the headers and
 * `x-amz-meta-*` kept with it, its checksum when the request asked with
 * `x-amz-checksum-mode: ENABLED` (not for a range: S3 sends the whole object's checksum only
 * with the whole object), then the `response-*` overrides of the query.
 */
export function objectHeaders(
  head: S3ObjectHead,
  query: Map<string, string>,
  request: { headers?: IncomingHttpHeaders; ranged?: boolean } = {},
): Record<string, string> {
  const headers: Record<string, string> = {
    'content-type': head.contentType,
    'content-length': String(head.size),
    etag: quoteEtag(head.etag),
    'last-modified': head.lastModified.toUTCString(),
    'accept-ranges': 'bytes',
    ...ISOLATION_HEADERS,
  };
  for (const [name, value] of Object.entries(head.headers ?? {})) headers[name] = value;
  for (const [name, value] of Object.entries(head.metadata)) headers[META_PREFIX + name] = value;
  if (head.checksum && !request.ranged && checksumModeEnabled(request.headers)) {
    headers[`x-amz-checksum-${head.checksum.algorithm}`] = head.checksum.value;
    headers['x-amz-checksum-type'] = head.checksum.type;
  }
  for (const [param, header] of Object.entries(RESPONSE_OVERRIDES)) {
    const value = query.get(param);
    if (value === undefined) continue;
    if (/[\r\n\0]/.test(value))
      throw new S3Error('InvalidArgument', `${param} must not hold line breaks`);
    headers[header] = value;
  }
  return headers;
}

export function checksumModeEnabled(headers: IncomingHttpHeaders | undefined): boolean {
  const mode = headers?.['x-amz-checksum-mode'];
  return typeof mode === 'string' && mode.trim().toUpperCase() === 'ENABLED';
}

/**
 * Conditional request headers (RFC 9110 order of evaluation, as S3 applies it). With `prefix`
 * `x-amz-copy-source-` the same rules check CopyObject's source. Returns 'not-modified' for a 304.
 */
export function evaluateConditions(
  headers: IncomingHttpHeaders,
  head: S3ObjectHead,
  prefix = '',
): 'proceed' | 'not-modified' {
  const ifMatch = single(headers[`${prefix}if-match`]);
  const ifNoneMatch = single(headers[`${prefix}if-none-match`]);
  const ifModifiedSince = parseDate(single(headers[`${prefix}if-modified-since`]));
  const ifUnmodifiedSince = parseDate(single(headers[`${prefix}if-unmodified-since`]));
  const modifiedSecs = Math.floor(head.lastModified.getTime() / 1000);
  const failed = () =>
    new S3Error(
      'PreconditionFailed',
      'at least one of the pre-conditions you specified did not hold',
      {
        Condition: prefix === '' ? 'If-Match' : 'x-amz-copy-source-If-Match',
      },
    );
  if (ifMatch !== undefined) {
    if (!etagListMatches(ifMatch, head.etag)) throw failed();
  } else if (ifUnmodifiedSince !== undefined && modifiedSecs > ifUnmodifiedSince) {
    throw failed();
  }
  if (ifNoneMatch !== undefined) {
    if (etagListMatches(ifNoneMatch, head.etag)) {
      if (prefix !== '') throw failed();
      return 'not-modified';
    }
  } else if (ifModifiedSince !== undefined && modifiedSecs <= ifModifiedSince) {
    if (prefix !== '') throw failed();
    return 'not-modified';
  }
  return 'proceed';
}

function etagListMatches(list: string, etag: string): boolean {
  return list
    .split(',')
    .map((t) => t.trim())
    .some((t) => t === '*' || unquoteEtag(t.replace(/^W\//, '')) === etag);
}

function single(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

function parseDate(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const millis = Date.parse(value);
  return Number.isNaN(millis) ? undefined : Math.floor(millis / 1000);
}
