import { Coding, isCompressible, MIN_COMPRESS_BYTES } from './content-coding';
import { variesByOrigin } from './cors';
import { SitePolicy } from './site-policy';
import { SiteObject } from './site-source';

/**
 * Header sets of site responses, built once per (site snapshot, object, status, coding) and
 * reused by every request that gets the same answer: the hot path copies a prepared record.
 *
 * ETags: the identity representation's ETag is the object's commitment, quoted (a strong
 * validator). A compressed representation has different bytes, so under RFC 9110's strong
 * comparison it must have a different tag: `"<commitment>-br"` and `"<commitment>-gzip"`.
 * Brotli and gzip output is deterministic for our settings, so these tags stay strong.
 */

export type HeaderSet = Readonly<Record<string, string>>;

export interface RepresentationHeaders {
  etag: string;
  /** Headers of the full 200 (or 404) answer, Content-Length included. */
  full: HeaderSet;
  /** Headers of a 304 answer: validators and caching metadata only. */
  notModified: HeaderSet;
  /** `full` and `notModified` as flat [name, value, ...] lists, for ServerResponse.writeHead. */
  rawFull: readonly string[];
  rawNotModified: readonly string[];
}

const SAFE_CONTENT_TYPE = /^[\x20-\x7e]{1,255}$/;
export const FALLBACK_CONTENT_TYPE = 'application/octet-stream';

/** Content-Type from the object's metadata, never header text that could break the response. */
export function contentTypeOf(object: SiteObject): string {
  return SAFE_CONTENT_TYPE.test(object.contentType) && object.contentType.trim() !== ''
    ? object.contentType
    : FALLBACK_CONTENT_TYPE;
}

/** Whether this object is ever sent compressed (then its answers vary by Accept-Encoding). */
export function compressionEligible(object: SiteObject, maxCachedBytes: number): boolean {
  return (
    object.size >= MIN_COMPRESS_BYTES &&
    object.size <= maxCachedBytes &&
    isCompressible(object.contentType)
  );
}

export function etagFor(object: SiteObject, coding: Coding | null): string {
  return coding === null ? `"${object.commitmentHex}"` : `"${object.commitmentHex}-${coding}"`;
}

export function varyFor(policy: SitePolicy, compressible: boolean): string | undefined {
  const byOrigin = variesByOrigin(policy);
  if (compressible && byOrigin) return 'Accept-Encoding, Origin';
  if (compressible) return 'Accept-Encoding';
  return byOrigin ? 'Origin' : undefined;
}

/**
 * The headers every site answer carries (content, redirects, pages of the site). `shared`: the
 * answer is on a path route, the gateway's origin shared by every site, and gets the isolation
 * sandbox beside the site's policy (path-isolation.ts).
 */
export function securityHeaders(policy: SitePolicy, shared: boolean): Record<string, string> {
  const headers: Record<string, string> = {
    'cache-control': policy.cacheControl,
    'x-content-type-options': 'nosniff',
    'content-security-policy': shared
      ? policy.sharedOriginContentSecurityPolicy
      : policy.contentSecurityPolicy,
  };
  if (policy.version !== undefined) headers['x-tape-version'] = policy.version;
  if (policy.robots !== undefined) headers['x-robots-tag'] = policy.robots;
  return headers;
}

export function representationHeaders(
  object: SiteObject,
  policy: SitePolicy,
  options: {
    status: 200 | 404;
    coding: Coding | null;
    bodyLength: number;
    compressible: boolean;
    shared: boolean;
  },
): RepresentationHeaders {
  const etag = etagFor(object, options.coding);
  const vary = varyFor(policy, options.compressible);
  const common: Record<string, string> = { etag, ...securityHeaders(policy, options.shared) };
  // The entry's commitment, as a proof states it (docs/verify.md, "Headers").
  if (policy.version !== undefined) common['x-tape-commitment'] = object.commitmentHex;
  if (vary) common.vary = vary;
  const full: Record<string, string> = {
    'content-type': contentTypeOf(object),
    'content-length': String(options.bodyLength),
    ...common,
  };
  if (options.status === 200) full['accept-ranges'] = 'bytes';
  if (options.coding) full['content-encoding'] = options.coding;
  return { etag, full, notModified: common, rawFull: flat(full), rawNotModified: flat(common) };
}

function flat(headers: HeaderSet): string[] {
  const out: string[] = [];
  for (const name of Object.keys(headers)) out.push(name, headers[name]);
  return out;
}

/**
 * `Content-Disposition: attachment` with the file's name: a plain quoted `filename` (non-ASCII
 * and unsafe characters replaced by `_`) and, when the name is not plain ASCII, the exact name
 * as RFC 6266 / RFC 8187 `filename*=UTF-8''…`.
 */
export function attachmentDisposition(fileName: string): string {
  const plain = fileName.replace(/[^\x20-\x7e]|["\\%]/g, '_');
  const fallback = `attachment; filename="${plain === '' ? 'download' : plain}"`;
  if (plain === fileName) return fallback;
  return `${fallback}; filename*=UTF-8''${encodeRfc8187(fileName)}`;
}

/** RFC 8187 value-chars: attr-char stays, everything else is percent-encoded UTF-8. */
function encodeRfc8187(text: string): string {
  return encodeURIComponent(text).replace(
    /['()*]/g,
    (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`,
  );
}
