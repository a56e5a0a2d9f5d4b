import type { Readable } from 'node:stream';
import type { ChecksumAlgorithm } from './body/checksums';
import type { ChecksumType, ObjectChecksum, ObjectParts, StoredHeaders } from './object-metadata';
import type { S3WriteCondition } from './handlers/write-conditions';

/**
 * The port between the S3 protocol layer and storage. The protocol layer (this folder) owns
 * everything S3-specific: SigV4, payload verification, listing order and pagination, XML, ranges,
 * part-list validation. An implementation only maps buckets (tape labels) and keys (object names)
 * to tape objects.
 *
 * Contract for every method taking a `body`:
 * - the stream yields the decoded object bytes (aws-chunked framing already removed);
 * - it ENDS only after every check passed (declared length, x-amz-content-sha256, chunk and
 *   trailer signatures, Content-MD5, x-amz-checksum-*). If any check fails, or the client
 *   disconnects, it is destroyed with an error instead. So: commit nothing until the stream has
 *   ended, and on a stream error discard what was written and reject with that same error
 *   (`stream.pipeline` does exactly this).
 *
 * Errors: throw the S3Backend*Error classes below; anything else answers 500 InternalError.
 * ETags are returned WITHOUT quotes (the protocol layer quotes them).
 */
export abstract class S3Backend {
  /** The bucket named `name` (a tape label), or null when no tape has that label. */
  abstract findBucket(name: string): Promise<S3Bucket | null>;

  /** The bucket of a tape (for ListBuckets: a credential sees its own tape only). */
  abstract findBucketOfTape(tapeAddress: string): Promise<S3Bucket | null>;

  /**
   * Every object of the bucket whose key starts with `prefix` (a hint: returning more is fine).
   * Any order: the protocol layer sorts by UTF-8 bytes and paginates.
   */
  abstract listObjects(bucket: S3Bucket, prefix: string): Promise<S3ObjectInfo[]>;

  /** Throws S3BackendNoSuchKeyError when absent. */
  abstract headObject(bucket: S3Bucket, key: string): Promise<S3ObjectHead>;

  /**
   * The object's bytes, or only `range` (inclusive, already validated against the size the
   * protocol layer got from headObject). Throws S3BackendNoSuchKeyError when absent.
   */
  abstract getObject(bucket: S3Bucket, key: string, range?: S3ByteRange): Promise<S3ObjectStream>;

  abstract putObject(bucket: S3Bucket, input: S3PutObjectInput): Promise<S3WriteResult>;

  /**
   * Copies into `bucket` (the credential's), from the same bucket or from `sourceBucket` (any
   * other: tapes' objects are public, only writes are scoped).
   */
  abstract copyObject(bucket: S3Bucket, input: S3CopyObjectInput): Promise<S3WriteResult>;

  /** Deletes keys; an absent key counts as deleted (S3 semantics). One outcome per key. */
  abstract deleteObjects(bucket: S3Bucket, keys: string[]): Promise<S3DeleteOutcome[]>;

  abstract createMultipartUpload(
    bucket: S3Bucket,
    input: S3CreateMultipartInput,
  ): Promise<{ uploadId: string }>;

  /**
   * Stores one part (replacing an earlier upload of the same number); `checksum` is the part's,
   * in the upload's checksum algorithm, when it has one.
   */
  abstract uploadPart(
    bucket: S3Bucket,
    input: S3UploadPartInput,
  ): Promise<{ etag: string; checksum?: { algorithm: ChecksumAlgorithm; value: string } }>;

  /** The upload's parts, any order. Throws S3BackendNoSuchUploadError. */
  abstract listParts(bucket: S3Bucket, key: string, uploadId: string): Promise<S3PartInfo[]>;

  /**
   * Assembles the parts `checkParts` chooses, in its order, into the object `key`, and forgets
   * the upload. `checkParts` is the protocol layer's check of the request's part list (ascending
   * part numbers, each part stored with the listed ETag and checksum, every part but the last at
   * least the minimum part size): call it on the part list read under the completion's lock, and
   * assemble exactly the parts it returns from that same read, so a part uploaded again meanwhile
   * is either the one checked or refused (S3: the object is the parts with the listed ETags, else
   * InvalidPart). A retry of an upload already completed answers its result again, unchecked.
   * Throws S3BackendNoSuchUploadError when the upload is unknown (or completed and forgotten).
   */
  abstract completeMultipartUpload(
    bucket: S3Bucket,
    key: string,
    uploadId: string,
    checkParts: S3PartListCheck,
    condition?: S3WriteCondition,
    /** The checksum the request says the object has: refuse with 400 BadDigest if it has not. */
    expected?: ExpectedChecksum,
  ): Promise<S3WriteResult>;

  /** Throws S3BackendNoSuchUploadError when the upload is unknown. */
  abstract abortMultipartUpload(bucket: S3Bucket, key: string, uploadId: string): Promise<void>;

  /** Uploads in progress (created, neither completed nor aborted). */
  abstract listMultipartUploads(bucket: S3Bucket): Promise<S3MultipartUploadInfo[]>;
}

export interface S3Bucket {
  /** The tape label. */
  name: string;
  tapeAddress: string;
  createdAt: Date;
}

export interface S3ObjectInfo {
  key: string;
  size: number;
  /** Unquoted: S3's (an MD5, or `<md5>-<parts>`) when the backend keeps one. */
  etag: string;
  lastModified: Date;
}

export interface S3ObjectHead extends S3ObjectInfo {
  contentType: string;
  /** `x-amz-meta-*` values by lowercase name without the prefix; {} when none are kept. */
  metadata: Record<string, string>;
  /** Cache-Control, Content-Disposition, Content-Encoding, Content-Language, Expires kept. */
  headers?: StoredHeaders;
  /** The checksum kept with the object (returned with `x-amz-checksum-mode: ENABLED`). */
  checksum?: ObjectChecksum;
  /** The part boundaries of an object completed from a multipart upload, when kept. */
  parts?: ObjectParts;
}

/** Inclusive byte offsets, as in `Content-Range`. */
export interface S3ByteRange {
  start: number;
  end: number;
}

export interface S3ObjectStream {
  head: S3ObjectHead;
  body: Readable;
}

export interface S3PutObjectInput {
  key: string;
  /** As sent by the client; undefined when it sent none (the backend may use the extension). */
  contentType: string | undefined;
  metadata: Record<string, string>;
  headers?: StoredHeaders;
  /** The checksum the client sent (header or trailer): its value is known once the body ended. */
  checksum?: BodyChecksum;
  /** Decoded size in bytes when the client declared it (it always does except chunked TE). */
  size: number | undefined;
  body: Readable;
  /** If-None-Match / If-Match: checked against the key atomically with the write. */
  condition?: S3WriteCondition;
}

export interface S3WriteResult {
  etag: string;
  lastModified: Date;
  /** The checksum kept with the new object, if any. */
  checksum?: ObjectChecksum;
}

/** A flexible checksum of a request body, verified; `value()` is set once the body ended. */
export interface BodyChecksum {
  algorithm: ChecksumAlgorithm;
  value: () => string | undefined;
}

export interface S3CopyObjectInput {
  /** Another bucket to read the source from; absent: the destination's. */
  sourceBucket?: S3Bucket;
  sourceKey: string;
  destinationKey: string;
  /** `x-amz-metadata-directive: REPLACE`: the new content type and metadata; else undefined. */
  replace?: {
    contentType: string | undefined;
    metadata: Record<string, string>;
    headers?: StoredHeaders;
  };
  /** If-None-Match / If-Match on the destination, checked atomically with the write. */
  condition?: S3WriteCondition;
}

export interface S3DeleteOutcome {
  key: string;
  /** Set when this key could not be deleted; the others still were. */
  error?: S3BackendError;
}

export interface S3CreateMultipartInput {
  key: string;
  contentType: string | undefined;
  metadata: Record<string, string>;
  headers?: StoredHeaders;
  /** `x-amz-checksum-algorithm` and `x-amz-checksum-type`: every part gets one, the object too. */
  checksum?: { algorithm: ChecksumAlgorithm; type: ChecksumType };
}

export interface S3UploadPartInput {
  key: string;
  uploadId: string;
  /** 1..10000 */
  partNumber: number;
  size: number | undefined;
  body: Readable;
}

export interface S3PartInfo {
  partNumber: number;
  etag: string;
  size: number;
  lastModified: Date;
  /** Base64, in the upload's checksum algorithm, when it has one. */
  checksum?: string;
  /** The upload's checksum algorithm (names `checksum` in ListParts). */
  checksumAlgorithm?: ChecksumAlgorithm;
}

/** A checksum a request names for the object it makes (base64; composite ones may end `-N`). */
export interface ExpectedChecksum {
  algorithm: ChecksumAlgorithm;
  value: string;
}

export interface S3CompletedPart {
  partNumber: number;
  /** Unquoted. */
  etag: string;
  /** A `Checksum<ALGORITHM>` the request gave for the part, to compare with the stored one. */
  checksum?: { algorithm: ChecksumAlgorithm; value: string };
}

/**
 * CompleteMultipartUpload's part list checked against the upload's stored parts: the parts to
 * assemble, in order, or an S3Error (InvalidPart, InvalidPartOrder, EntityTooSmall).
 */
export type S3PartListCheck = (stored: S3PartInfo[]) => S3CompletedPart[];

export interface S3MultipartUploadInfo {
  key: string;
  uploadId: string;
  initiated: Date;
}

/** Base of the typed failures a backend throws; the protocol layer maps each to S3's XML. */
export abstract class S3BackendError extends Error {
  constructor(message: string) {
    super(message);
    this.name = new.target.name;
  }
}

export class S3BackendNoSuchBucketError extends S3BackendError {
  constructor(bucket: string) {
    super(`no tape has the label ${bucket}`);
  }
}

export class S3BackendNoSuchKeyError extends S3BackendError {
  constructor(key: string) {
    super(`no object named ${key}`);
  }
}

export class S3BackendNoSuchUploadError extends S3BackendError {
  constructor(uploadId: string) {
    super(`no multipart upload ${uploadId} (completed, aborted or never created)`);
  }
}

/** The part list names a part that does not exist or has another ETag. */
export class S3BackendInvalidPartError extends S3BackendError {}

/** The tape has no room: answered as 507 `insufficient capacity (fix: tape resize --add <size>)`. */
export class S3BackendInsufficientCapacityError extends S3BackendError {
  constructor(detail = '') {
    super(detail);
  }
}

/**
 * The gateway cannot pay for the write: its key is short of SOL. 507 with the message naming
 * the key (no client retries a 507; this lasts until the operator funds the key).
 */
export class S3BackendUnpaidError extends S3BackendError {}

/** The tape's reservation ended: 403 `tape expired (fix: tape extend --duration <time>)`. */
export class S3BackendTapeExpiredError extends S3BackendError {
  constructor(detail = '') {
    super(detail);
  }
}

/** Refused for a reason of the tape (undelegated, reserved name such as `.well-known/`): 403. */
export class S3BackendAccessDeniedError extends S3BackendError {}

/** Larger than the backend accepts for one object or part: 400 EntityTooLarge. */
export class S3BackendEntityTooLargeError extends S3BackendError {}

/** The gateway has no room for the write now (its spool is full): 503 SlowDown, retried later. */
export class S3BackendSlowDownError extends S3BackendError {}

/** The write would publish a version the gateway refuses for its content (invalid site rules). */
export class S3BackendInvalidArgumentError extends S3BackendError {}

/** The requested range is outside the object (it changed since headObject): 416. */
export class S3BackendInvalidRangeError extends S3BackendError {}
