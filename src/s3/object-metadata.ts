import type { IncomingHttpHeaders } from 'node:http';
import type { ChecksumAlgorithm } from './body/checksums';

/**
 * What S3 keeps of a PutObject's headers besides its type and bytes, and returns on GetObject and
 * HeadObject (and copies with the object): these five standard headers, `x-amz-meta-*`, and the
 * object's checksum (docs/s3.md, "Metadata and checksums").
 */
export const STORED_HEADERS = [
  'cache-control',
  'content-disposition',
  'content-encoding',
  'content-language',
  'expires',
] as const;
export type StoredHeader = (typeof STORED_HEADERS)[number];
export type StoredHeaders = Partial<Record<StoredHeader, string>>;

/** FULL_OBJECT: the checksum of the whole body; COMPOSITE: of the parts' checksums (`…-N`). */
export type ChecksumType = 'FULL_OBJECT' | 'COMPOSITE';

export interface ObjectChecksum {
  algorithm: ChecksumAlgorithm;
  type: ChecksumType;
  /** Base64 of the digest; a composite one ends in `-<parts>`, as S3 sends it. */
  value: string;
}

/**
 * Where the parts of an object completed from a multipart upload begin and end (for
 * GetObjectAttributes' ObjectParts and GET/HEAD by `partNumber`), and each part's checksum in the
 * object's checksum algorithm when the upload had one.
 */
export interface ObjectParts {
  sizes: number[];
  /** Base64, one per part, in the algorithm of the object's checksum. */
  checksums?: string[];
}

/** Everything kept with an object besides its type, size and bytes. */
export interface ObjectMetadata {
  headers: StoredHeaders;
  /** `x-amz-meta-*` by lowercase name without the prefix. */
  user: Record<string, string>;
  checksum?: ObjectChecksum;
  /**
   * The object's S3 ETag, unquoted: the hex MD5 of a PutObject's body, or S3's `<md5 of the
   * parts' MD5s>-<parts>` of a completed multipart upload. Absent (names `tape deploy` wrote, or
   * written before it was kept): the S3 ETag is the track commitment.
   */
  etag?: string;
  parts?: ObjectParts;
  /**
   * When the object was written (unix seconds): a version entry has no time of its own, so the
   * S3 endpoint keeps its Last-Modified here. Absent (`tape deploy`'s entries): the version's.
   */
  modified?: number;
}

export const NO_METADATA: ObjectMetadata = Object.freeze({ headers: {}, user: {} });

/**
 * The five standard headers of a write request, as sent. `aws-chunked` is the request's framing,
 * not the object's encoding: S3 drops it from Content-Encoding, and keeps the rest.
 */
export function readStoredHeaders(headers: IncomingHttpHeaders): StoredHeaders {
  const out: StoredHeaders = {};
  for (const name of STORED_HEADERS) {
    const raw = headers[name];
    if (raw === undefined) continue;
    let value = Array.isArray(raw) ? raw.join(',') : raw;
    if (name === 'content-encoding') {
      const codings = value.split(',').map((v) => v.trim());
      // As sent (`deflate, gzip` stays so), unless the framing is to be dropped from it.
      if (codings.some((v) => v.toLowerCase() === 'aws-chunked')) {
        value = codings.filter((v) => v !== '' && v.toLowerCase() !== 'aws-chunked').join(', ');
      }
    }
    if (value !== '') out[name] = value;
  }
  return out;
}
