import {
  AbortMultipartUploadCommand,
  CompleteMultipartUploadCommand,
  CreateBucketCommand,
  CreateMultipartUploadCommand,
  DeleteObjectCommand,
  GetObjectCommand,
  HeadBucketCommand,
  HeadObjectCommand,
  PutObjectCommand,
  S3Client,
  UploadPartCommand,
} from '@aws-sdk/client-s3';
import { createReadStream } from 'node:fs';
import { Readable } from 'node:stream';
import type { TrackS3Config } from '../../config/storage.config';
import { chunkCount } from '../commitment';
import { TrackNotFoundError, TrackStoreError, TrackStoreUnavailableError } from '../track-errors';
import { commandRangedGet, RangedGet, signedRangedGet } from './ranged-get';
import { describeS3Error, statusOf, trackS3Client } from './track-s3-client';

/** The /healthz probe's bound (HealthRegistry waits 2 s for every probe). */
const HEALTH_PROBE_MS = 1500;
/**
 * Tracks of at most this many chunks (2 MiB) also carry their chunk list in the object's user
 * metadata (`x-amz-meta-tape-chunks`, base64, 1,368 characters at most: inside S3's 2 KB of
 * user metadata), so a cold read of a small track is one GET: the list arrives with the bytes.
 * The `.chunks` object stays the list of record (and the fallback when the metadata is absent,
 * from an older writer, or does not match the commitment).
 */
export const INLINE_CHUNK_LIST_CHUNKS = 32;
const CHUNK_LIST_METADATA = 'tape-chunks';

/** What a ranged GET of a track's bytes answered, untrusted. */
export interface BucketRange {
  body: Readable;
  /** The length the bucket announced, when it did. */
  contentLength: number | undefined;
  /** The chunk list the object carries in its metadata, when it does (not yet verified). */
  inlineChunkList: Buffer | undefined;
}

export interface TrackBucketOptions {
  /** An S3 client to use instead of one built from the config (tests); reads go through it too. */
  client?: S3Client;
  /** The ranged GET of reads (default: signedRangedGet, or the given client's GetObject). */
  rangedGet?: RangedGet;
}

/**
 * A track bucket on the wire: the S3 requests of the S3 track store, content-addressed under
 * `storage.tracks.s3.prefix`:
 *
 *   <prefix><hex>          the track's bytes (a small track's chunk list in its metadata too)
 *   <prefix><hex>.chunks   its chunk-hash list (32 bytes per 64 KiB chunk)
 *
 * It says what the bucket answers and verifies nothing (S3TrackStore does). A read's failure is
 * a TrackNotFoundError (404) or a TrackStoreUnavailableError; a conditional put that finds the
 * object there (412) succeeds, the content being the same.
 */
export class TrackBucket {
  private readonly client: S3Client;
  /** The hot read: ranged GETs without the command pipeline (ranged-get.ts). */
  private readonly rangedGet: RangedGet;

  constructor(
    private readonly s3: TrackS3Config,
    options: TrackBucketOptions = {},
  ) {
    this.client = options.client ?? trackS3Client(s3);
    this.rangedGet =
      options.rangedGet ??
      (options.client ? commandRangedGet(options.client, s3.bucket) : signedRangedGet(s3));
  }

  /** Creates the bucket when it is missing (a writer's `create_bucket`). */
  async ensureExists(): Promise<void> {
    try {
      await this.client.send(new HeadBucketCommand({ Bucket: this.s3.bucket }));
    } catch (err) {
      if (statusOf(err) !== 404) throw err;
      await this.client.send(new CreateBucketCommand({ Bucket: this.s3.bucket }));
    }
  }

  /** The bucket answers (HeadBucket), within the /healthz probe's bound; throws why not. */
  async checkReachable(): Promise<void> {
    try {
      // Inside /healthz's own 2 s bound, so the answer names the store rather than a timeout.
      await this.client.send(new HeadBucketCommand({ Bucket: this.s3.bucket }), {
        abortSignal: AbortSignal.timeout(HEALTH_PROBE_MS),
      });
    } catch (err) {
      throw new Error(`track store unreachable (${describeS3Error(err)})`);
    }
  }

  /** The stored object's length, or undefined when there is none. */
  async size(hex: string): Promise<number | undefined> {
    try {
      const out = await this.client.send(
        new HeadObjectCommand({ Bucket: this.s3.bucket, Key: this.key(hex) }),
      );
      return out.ContentLength;
    } catch (err) {
      if (statusOf(err) === 404) return undefined;
      throw this.readError(hex, err);
    }
  }

  /** The `.chunks` object whole, or undefined when absent. */
  async chunkList(hex: string): Promise<Buffer | undefined> {
    try {
      const out = await this.client.send(
        new GetObjectCommand({ Bucket: this.s3.bucket, Key: this.key(`${hex}.chunks`) }),
      );
      return Buffer.from(await out.Body!.transformToByteArray());
    } catch (err) {
      if (statusOf(err) === 404) return undefined;
      throw this.readError(hex, err);
    }
  }

  /** A ranged GET of the track's bytes (from..to inclusive), with any inline chunk list. */
  async range(hex: string, from: number, to: number): Promise<BucketRange> {
    try {
      const out = await this.rangedGet(this.key(hex), from, to);
      const inline = out.metadata(CHUNK_LIST_METADATA);
      return {
        body: out.body,
        contentLength: out.contentLength,
        inlineChunkList: inline === undefined ? undefined : Buffer.from(inline, 'base64'),
      };
    } catch (err) {
      throw this.readError(hex, err);
    }
  }

  /**
   * The chunk list, then the bytes from the verified spool file at `path`: created only
   * (`If-None-Match: *`) unless `overwrite` (the repair of a stored copy that failed). A track
   * larger than `multipart_part_bytes` goes up in parts.
   */
  async putTrack(
    hex: string,
    path: string,
    size: number,
    chunkHashes: Buffer,
    overwrite: boolean,
  ): Promise<void> {
    await this.putObject(`${hex}.chunks`, chunkHashes, chunkHashes.length, {});
    if (size > this.s3.multipart_part_bytes) return this.putMultipart(hex, path, size);
    await this.putObject(hex, createReadStream(path), size, {
      ...(overwrite ? {} : { IfNoneMatch: '*' }),
      ...inlineChunkList(size, chunkHashes),
    });
  }

  /** Deletes the bytes, then the chunk list. */
  async deleteTrack(hex: string): Promise<void> {
    for (const name of [hex, `${hex}.chunks`]) {
      await this.client.send(
        new DeleteObjectCommand({ Bucket: this.s3.bucket, Key: this.key(name) }),
      );
    }
  }

  private async putObject(
    name: string,
    body: Buffer | Readable,
    length: number,
    extra: { IfNoneMatch?: string; Metadata?: Record<string, string> },
  ): Promise<void> {
    try {
      await this.client.send(
        new PutObjectCommand({
          Bucket: this.s3.bucket,
          Key: this.key(name),
          Body: body,
          ContentLength: length,
          ContentType: 'application/octet-stream',
          ...extra,
        }),
      );
    } catch (err) {
      // 412: the object exists (written concurrently): content-addressed, so the same bytes.
      if (statusOf(err) === 412) return;
      throw new TrackStoreUnavailableError(name.slice(0, 64), err);
    }
  }

  /**
   * A big track in parts read from the verified spool file. The object appears only at
   * CompleteMultipartUpload (whole or not at all); a failure aborts the upload. (Ceph 16
   * ignores If-None-Match on Complete: a concurrent writer's copy is the same bytes anyway.)
   */
  private async putMultipart(hex: string, path: string, size: number): Promise<void> {
    const Bucket = this.s3.bucket;
    const Key = this.key(hex);
    const partBytes = this.s3.multipart_part_bytes;
    let uploadId: string | undefined;
    try {
      const created = await this.client.send(
        new CreateMultipartUploadCommand({ Bucket, Key, ContentType: 'application/octet-stream' }),
      );
      uploadId = created.UploadId!;
      const parts: { ETag: string; PartNumber: number }[] = [];
      for (let offset = 0, n = 1; offset < size; offset += partBytes, n++) {
        const length = Math.min(partBytes, size - offset);
        const out = await this.client.send(
          new UploadPartCommand({
            Bucket,
            Key,
            UploadId: uploadId,
            PartNumber: n,
            ContentLength: length,
            Body: createReadStream(path, { start: offset, end: offset + length - 1 }),
          }),
        );
        parts.push({ ETag: out.ETag!, PartNumber: n });
      }
      await this.client.send(
        new CompleteMultipartUploadCommand({
          Bucket,
          Key,
          UploadId: uploadId,
          MultipartUpload: { Parts: parts },
        }),
      );
    } catch (err) {
      if (uploadId !== undefined) {
        await this.client
          .send(new AbortMultipartUploadCommand({ Bucket, Key, UploadId: uploadId }))
          .catch(() => undefined);
      }
      throw new TrackStoreUnavailableError(hex, err);
    }
  }

  private readError(hex: string, err: unknown): Error {
    if (err instanceof TrackStoreError) return err;
    if (statusOf(err) === 404) return new TrackNotFoundError(hex);
    return new TrackStoreUnavailableError(hex, new Error(describeS3Error(err)));
  }

  private key(name: string): string {
    return `${this.s3.prefix}${name}`;
  }
}

/** The chunk list as user metadata, for a track small enough (INLINE_CHUNK_LIST_CHUNKS). */
function inlineChunkList(size: number, hashes: Buffer): { Metadata?: Record<string, string> } {
  if (chunkCount(size) > INLINE_CHUNK_LIST_CHUNKS) return {};
  return { Metadata: { [CHUNK_LIST_METADATA]: hashes.toString('base64') } };
}
