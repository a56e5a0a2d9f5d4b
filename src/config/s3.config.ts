import { IsNumber, IsOptional, IsString, Max, Min } from 'class-validator';
import { IntRange } from './config-decorators';

/** `gateway.s3.*`: the S3-compatible listener. */
export class S3Config {
  @IntRange(0, 65535)
  port = 8081;

  /** Host for virtual-hosted-style buckets (`<bucket>.<host>`); empty = path style only. */
  @IsOptional()
  @IsString()
  virtual_host?: string;

  @IsString()
  region = 'us-east-1';

  /** Largest single PutObject / UploadPart body. */
  @IntRange(1)
  max_object_bytes = 5 * 1024 * 1024 * 1024;

  /** Largest single chunk of an aws-chunked body (SDKs send 64 KiB; nothing is buffered). */
  @IntRange(1)
  max_chunk_bytes = 16 * 1024 * 1024;

  /**
   * Largest PutObject body sent without a declared length (chunked Transfer-Encoding, no
   * Content-Length): the spool reserves this much for it before reading. 0 refuses such bodies
   * (`411 MissingContentLength`). UploadPart always needs a length.
   */
  @IntRange(0)
  max_unsized_body_bytes = 64 * 1024 * 1024;

  /** Smallest part (except the last) CompleteMultipartUpload accepts: S3's 5 MiB. */
  @IntRange(1)
  min_part_bytes = 5 * 1024 * 1024;

  /**
   * Bytes the gateway holds on disk and in flight for S3 writes not yet stored, over all tapes:
   * parts of open multipart uploads, and PutObject / UploadPart bodies being received. A write
   * past it is answered `503 SlowDown` (clients retry later).
   */
  @IntRange(1)
  max_spool_bytes = 10 * 1024 * 1024 * 1024;

  /**
   * The part of `max_spool_bytes` one tape may hold (0..1): past it the tape's own writes are
   * answered `503 SlowDown`, so one tenant cannot take the spool from all others. The default
   * (half of 10 GiB) still takes one PutObject of `max_object_bytes` (5 GiB); a lower share needs
   * a larger spool for objects that big.
   */
  @IsNumber()
  @Min(0.01)
  @Max(1)
  spool_share_per_tape = 0.5;

  /** Multipart uploads in progress per tape (created, neither completed nor aborted). */
  @IntRange(1)
  max_uploads_per_tape = 100;

  /** Multipart uploads neither completed nor aborted this long after they began are removed. */
  @IntRange(1)
  upload_expiry_hours = 7 * 24;

  /**
   * Multipart uploads that received no part for this long (since they began or since their last
   * part) are removed and their spool given back, well before `upload_expiry_hours`.
   */
  @IntRange(1)
  upload_idle_hours = 24;

  /**
   * Completed multipart uploads remembered (for upload_expiry_hours) so that a retried
   * CompleteMultipartUpload answers the same ETag instead of 404 NoSuchUpload; past this many
   * the oldest are forgotten first. Each is a few hundred bytes on disk.
   */
  @IntRange(0)
  completed_uploads_kept = 10_000;

  /**
   * The operator key that seals S3 secrets at rest (32 random bytes in hex; created on first
   * use). Default `<data_dir>/s3-credentials.key`. Replicas sharing credentials through
   * `storage.shared.redis_url` must all be given the same key file.
   */
  @IsOptional()
  @IsString()
  credential_key_file?: string;

  /** A connection that sends or receives nothing for this long is closed. */
  @IntRange(1000)
  idle_timeout_ms = 120000;
}
