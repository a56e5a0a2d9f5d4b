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
import { Logger } from '@nestjs/common';
import { randomBytes } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { open, rm } from 'node:fs/promises';
import { Readable } from 'node:stream';
import { PRIVATE_FILE_MODE } from '../../config/private-files';
import type { TrackS3Config } from '../../config/storage.config';
import { ByteLru } from '../byte-lru';
import {
  CHUNK_HASH_BYTES,
  COMMITMENT_BYTES,
  TrackDigest,
  assertRangeInside,
  assertTrackSize,
  chunkCount,
  commitmentToHex,
  verifyChunkList,
} from '../commitment';
import { readExactly } from '../durable-file';
import { hashTrackBody } from '../track-body';
import {
  IntegrityError,
  TrackNotFoundError,
  TrackStoreError,
  TrackStoreUnavailableError,
} from '../track-errors';
import { failoverRange } from '../failover-range';
import { SqliteTrackReferences } from '../sqlite-track-references';
import { TrackReferences } from '../track-references';
import {
  ClaimLimits,
  ClaimOutcome,
  ReferencedBlob,
  ReleaseOutcome,
  TrackClaim,
  TrackIntegrityReport,
  TrackReference,
  TrackStore,
  TrackStoreStats,
} from '../track-store';
import { storedCopyFault, TrackStoreLedger } from '../track-store-ledger';
import { VerifiedRangeStream } from '../verified-range-stream';
import { commandRangedGet, RangedGet, signedRangedGet } from './ranged-get';
import { RemoteBytes, RemoteRangeStream } from './remote-range-stream';
import { TrackCache } from './track-cache';

/** The /healthz probe's bound (HealthRegistry waits 2 s for every probe). */
const HEALTH_PROBE_MS = 1500;
/** Whole-track cache fills started by partial reads, at once. */
const BACKGROUND_FILLS = 4;
/**
 * Tracks of at most this many chunks (2 MiB) also carry their chunk list in the object's user
 * metadata (`x-amz-meta-tape-chunks`, base64, 1,368 characters at most: inside S3's 2 KB of
 * user metadata), so a cold read of a small track is one GET: the list arrives with the bytes.
 * The `.chunks` object stays the list of record (and the fallback when the metadata is absent,
 * from an older writer, or does not match the commitment).
 */
export const INLINE_CHUNK_LIST_CHUNKS = 32;
const CHUNK_LIST_METADATA = 'tape-chunks';

interface VerifiedChunkList {
  size: number;
  hashes: Buffer;
  byteLength: number;
}

export interface S3TrackStoreOptions {
  s3: TrackS3Config;
  cache: TrackCache;
  /** The writer's reference index (SQLite, `<data_dir>/tracks.references.sqlite`). */
  indexPath?: string;
  /** Shared references instead (replicas: RedisTrackReferences); wins over indexPath. */
  references?: TrackReferences;
  /** An S3 client to use instead of one built from `s3` (tests); reads go through it too. */
  client?: S3Client;
  /** The ranged GET of reads (default: signedRangedGet, or the given client's GetObject). */
  rangedGet?: RangedGet;
  /** Hash cached chunks again on every read (storage.tracks.cache.verify_reads); default on. */
  verifyCacheReads?: boolean;
}

/** Builds the client for a track bucket: plain PutObject (no aws-chunked trailers, Ceph 16). */
export function trackS3Client(s3: TrackS3Config): S3Client {
  const signed = s3.access_key_id !== undefined && s3.secret_access_key !== undefined;
  return new S3Client({
    endpoint: s3.endpoint,
    region: s3.region,
    forcePathStyle: s3.path_style,
    credentials: signed
      ? { accessKeyId: s3.access_key_id!, secretAccessKey: s3.secret_access_key! }
      : { accessKeyId: '', secretAccessKey: '' },
    // A public-read bucket: requests go unsigned.
    ...(signed ? {} : { signer: { sign: (request) => Promise.resolve(request) } }),
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
    maxAttempts: 2,
    // A store that connects but stops answering fails the request once its socket has been
    // idle for request_timeout_ms (the handler's requestTimeout alone only logs a warning, and
    // would also bound a large upload's whole duration, not its silence).
    requestHandler: {
      connectionTimeout: Math.min(s3.request_timeout_ms, 3000),
      socketTimeout: s3.request_timeout_ms,
    },
  });
}

/**
 * Track bytes in an S3-compatible bucket, content-addressed by commitment:
 *
 *   <prefix><hex>          the track's bytes
 *   <prefix><hex>.chunks   its chunk-hash list (32 bytes per 64 KiB chunk)
 *
 * The bucket is not trusted: chunk lists are checked against the commitment, every chunk
 * against its hash before a byte of it is served (IntegrityError otherwise). Writes are
 * conditional (`If-None-Match: *`): a second writer of the same track changes nothing; a stored
 * copy that fails verification is overwritten by the next verified upload (the repair).
 * Reads go through a verified local cache (TrackCache): a whole-track read fills it, later
 * reads are served from local disk. A store that cannot be reached is a
 * TrackStoreUnavailableError (503), distinct from missing (404 from the store) or corrupt bytes.
 */
export class S3TrackStore extends TrackStore {
  private readonly client: S3Client;
  /** The hot read: ranged GETs without the command pipeline (ranged-get.ts). */
  private readonly rangedGet: RangedGet;
  private readonly chunkLists = new ByteLru<VerifiedChunkList>(16 * 1024 * 1024);
  private readonly ledger = new TrackStoreLedger();
  private readonly index: TrackReferences;
  /** Puts and releases of one track in this process run one at a time (the writer's GC). */
  private readonly locks = new Map<string, Promise<void>>();
  private readonly logger = new Logger('track-store');
  /** Tracks being fetched whole in the background (fillInBackground). */
  private readonly filling = new Set<string>();
  /** Cached copies that failed their check when read again (dropped, read from the bucket). */
  private cacheMismatches = 0;

  constructor(private readonly options: S3TrackStoreOptions) {
    super();
    this.client = options.client ?? trackS3Client(options.s3);
    this.rangedGet =
      options.rangedGet ??
      (options.client
        ? commandRangedGet(options.client, options.s3.bucket)
        : signedRangedGet(options.s3));
    if (!options.references && !options.indexPath) throw new Error('no reference index given');
    this.index = options.references ?? new SqliteTrackReferences(options.indexPath!);
  }

  get cache(): TrackCache {
    return this.options.cache;
  }

  async init(options: { createBucket?: boolean } = {}): Promise<void> {
    await this.cache.init();
    if (!options.createBucket) return;
    try {
      await this.client.send(new HeadBucketCommand({ Bucket: this.options.s3.bucket }));
    } catch (err) {
      if (statusOf(err) !== 404) throw err;
      await this.client.send(new CreateBucketCommand({ Bucket: this.options.s3.bucket }));
    }
  }

  /**
   * Whether the bucket holds the track (write paths ask, after claiming it): waits out a
   * deletion in progress, and asks the bucket itself, since another replica's collector may
   * have deleted what this replica still has in its cache.
   */
  async has(commitment: Buffer): Promise<boolean> {
    const hex = this.hexOf(commitment);
    await this.index.awaitDeletion(commitment);
    return (await this.remoteSize(hex)) !== undefined;
  }

  async storedSize(commitment: Buffer): Promise<number | undefined> {
    const hex = this.hexOf(commitment);
    const cached = this.cache.lookup(hex);
    if (cached !== undefined) return cached;
    return this.remoteSize(hex);
  }

  async put(commitment: Buffer, size: number, body: Readable): Promise<void> {
    const hex = this.hexOf(commitment);
    assertTrackSize(size);
    await this.cache.init();
    await this.locked(hex, async () => {
      let corruption: string | undefined;
      // Claimed before: a deletion fenced meanwhile ends before the bucket is asked.
      await this.index.awaitDeletion(commitment).catch((err) => this.ledger.rejectPut(err, body));
      const stored = await this.remoteSize(hex).catch((err) => this.ledger.rejectPut(err, body));
      if (stored !== undefined) {
        corruption = await storedCopyFault(this.ledger, {
          hex,
          size,
          storedSize: stored,
          noun: 'object',
          forgetChunkList: () => this.chunkLists.delete(hex),
          readChunkList: () => this.readChunkHashes(commitment, size),
          // What is in the bucket must be intact, not the local cache's copy of it.
          readWhole: () => this.remoteRange(commitment, size, 0, size - 1, false),
        });
        if (corruption === undefined) {
          await hashTrackBody(hex, size, body, undefined).catch((err) =>
            this.ledger.rejectPut(err, body),
          );
          return;
        }
      }
      const temp = this.cache.tempPath(hex, `${randomBytes(6).toString('hex')}.put`);
      let digest: TrackDigest;
      try {
        const file = await open(temp, 'w', PRIVATE_FILE_MODE);
        try {
          digest = await hashTrackBody(hex, size, body, async (bytes) => {
            await file.write(bytes);
          });
          await file.sync();
        } finally {
          await file.close();
        }
        // Repairing: overwrite; otherwise only create (a concurrent writer's copy is the same).
        const condition = corruption === undefined ? { IfNoneMatch: '*' } : {};
        await this.putObject(`${hex}.chunks`, digest.chunkHashes, digest.chunkHashes.length, {});
        if (size > this.options.s3.multipart_part_bytes) {
          await this.putMultipart(hex, temp, size);
        } else {
          await this.putObject(hex, createReadStream(temp), size, {
            ...condition,
            ...inlineChunkList(size, digest.chunkHashes),
          });
        }
      } catch (err) {
        await rm(temp, { force: true });
        return this.ledger.rejectPut(err, body);
      }
      if (corruption !== undefined) this.noteRepaired(hex, corruption);
      this.chunkLists.delete(hex);
      await this.cache.evict(hex);
      await this.cache.admit(hex, temp, size, digest.chunkHashes);
      this.ledger.stored(size);
    });
  }

  async readChunkHashes(commitment: Buffer, size: number): Promise<Buffer> {
    const hex = this.hexOf(commitment);
    const known = this.knownChunkList(hex, size);
    if (known) return known;
    const expectedBytes = chunkCount(size) * CHUNK_HASH_BYTES;
    let hashes: Buffer | undefined;
    if (this.cache.lookup(hex) !== undefined) {
      hashes = await readExactly(this.cache.chunksPath(hex), expectedBytes).catch(() => undefined);
      if (hashes && !verifyChunkList(commitment, size, hashes)) hashes = undefined;
      if (!hashes) await this.cache.evict(hex);
    }
    if (!hashes) {
      hashes = await this.getWhole(hex, `${hex}.chunks`);
      if (hashes === undefined) {
        if ((await this.remoteSize(hex)) !== undefined) {
          throw this.ledger.integrityFailure(hex, 'chunk list missing');
        }
        throw new TrackNotFoundError(hex);
      }
      if (hashes.length !== expectedBytes) {
        throw this.ledger.integrityFailure(hex, `chunk list has ${hashes.length} bytes`);
      }
      if (!verifyChunkList(commitment, size, hashes)) {
        throw this.ledger.integrityFailure(hex, 'chunk list does not match the commitment');
      }
    }
    this.rememberChunkList(hex, size, hashes);
    return hashes;
  }

  private knownChunkList(hex: string, size: number): Buffer | undefined {
    const known = this.chunkLists.get(hex);
    return known && known.size === size ? known.hashes : undefined;
  }

  private rememberChunkList(hex: string, size: number, hashes: Buffer): void {
    this.chunkLists.set(hex, { size, hashes, byteLength: hashes.length + 64 });
  }

  openRange(commitment: Buffer, size: number, start: number, endInclusive: number): Readable {
    const hex = this.hexOf(commitment);
    assertTrackSize(size);
    assertRangeInside(start, endInclusive, size);
    if (this.cache.lookup(hex) === size) {
      // The cached copy, hashed again (cache.verify_reads, on by default); a copy changed on
      // this disk is dropped and the rest of the range read from the bucket, verified.
      return failoverRange({
        track: hex,
        start,
        endInclusive,
        sources: [
          {
            name: 'cache',
            open: (from, to) =>
              new VerifiedRangeStream({
                track: hex,
                path: this.cache.dataPath(hex),
                size,
                start: from,
                endInclusive: to,
                chunkHashes: () => this.readChunkHashes(commitment, size),
                counters: this.ledger.counters,
                verify: this.options.verifyCacheReads !== false,
              }),
            failed: (err) => {
              if (err instanceof IntegrityError) this.cacheMismatches++;
              this.chunkLists.delete(hex);
              void this.cache.evict(hex);
            },
          },
          {
            name: 'bucket',
            open: (from, to) => this.remoteRange(commitment, size, from, to, false),
            failed: () => undefined,
          },
        ],
      });
    }
    const whole = start === 0 && endInclusive === size - 1;
    if (!whole) this.fillInBackground(commitment, size);
    return this.remoteRange(commitment, size, start, endInclusive, true);
  }

  /**
   * A partial read of a track that is not cached: fetch the whole track once in the background
   * (verified, into the cache), so the next ranges of a hot object are local. At most
   * BACKGROUND_FILLS at once, one per track; a failure only leaves the track uncached.
   */
  private fillInBackground(commitment: Buffer, size: number): void {
    const hex = commitmentToHex(commitment);
    if (!this.cache.fits(size) || this.filling.has(hex)) return;
    if (this.filling.size >= BACKGROUND_FILLS) return;
    this.filling.add(hex);
    const stream = this.remoteRange(commitment, size, 0, size - 1, true);
    stream.on('data', () => undefined);
    stream.once('error', () => undefined);
    stream.once('close', () => this.filling.delete(hex));
  }

  async claim(claim: TrackClaim, limits: ClaimLimits = {}): Promise<ClaimOutcome> {
    this.hexOf(claim.commitment);
    return this.index.claim(claim, limits);
  }

  async claimMany(claims: TrackClaim[]): Promise<void> {
    for (const claim of claims) this.hexOf(claim.commitment);
    await this.index.claimMany(claims);
  }

  async referencesOfTape(tape: string): Promise<ReferencedBlob[]> {
    return this.index.referencesOfTape(tape);
  }

  async unclaim(claim: TrackClaim, recordedAt: number): Promise<void> {
    await this.index.unclaim(claim, recordedAt);
  }

  async listReferenced(after: Buffer | undefined, limit: number): Promise<ReferencedBlob[]> {
    return this.index.list(after, limit);
  }

  /**
   * Drops the dead references, then deletes the objects under the track's lock when none is
   * left, fenced (TrackReferences.fenceDeletion): uploads on any replica claim before they look
   * for the bytes and wait out a fence, so a claim made before the fence keeps the bytes, and a
   * put after it waits for the deletion and writes them again.
   */
  async release(
    commitment: Buffer,
    dead: TrackReference[],
    decidedAt: number,
  ): Promise<ReleaseOutcome> {
    const hex = this.hexOf(commitment);
    await this.index.drop(commitment, dead, decidedAt);
    return this.locked(hex, async (): Promise<ReleaseOutcome> => {
      const fence = await this.index.fenceDeletion(commitment, this.deletionFenceMs);
      if (fence === null) return { outcome: 'kept' };
      try {
        const size = await this.remoteSize(hex);
        await this.deleteObjects(hex);
        if (size === undefined) return { outcome: 'absent' };
        this.ledger.collected(size);
        return { outcome: 'deleted', bytes: size };
      } finally {
        await this.index.endDeletion(commitment, fence);
      }
    });
  }

  /** Longer than a deletion can take: two DeleteObjects, each retried once at most. */
  private get deletionFenceMs(): number {
    return Math.max(60_000, 6 * this.options.s3.request_timeout_ms);
  }

  async remove(commitment: Buffer): Promise<boolean> {
    const hex = this.hexOf(commitment);
    return this.locked(hex, async () => {
      const existed = (await this.remoteSize(hex)) !== undefined;
      await this.deleteObjects(hex);
      return existed;
    });
  }

  async stats(): Promise<TrackStoreStats> {
    return { ...this.ledger.stats('s3'), cacheMismatches: this.cacheMismatches };
  }

  integrity(): TrackIntegrityReport {
    return this.ledger.integrity();
  }

  /** The bucket answers (HeadBucket): readiness fails with the reason while it does not. */
  async checkHealth(): Promise<void> {
    try {
      // Inside /healthz's own 2 s bound, so the answer names the store rather than a timeout.
      await this.client.send(new HeadBucketCommand({ Bucket: this.options.s3.bucket }), {
        abortSignal: AbortSignal.timeout(HEALTH_PROBE_MS),
      });
    } catch (err) {
      throw new Error(`track store unreachable (${describeS3Error(err)})`);
    }
  }

  /** Bytes and the cache: used in /healthz details. */
  cacheReport(): { tracks: number; bytes: number; max_bytes: number } {
    return { tracks: this.cache.tracks, bytes: this.cache.bytes, max_bytes: this.cache.maxBytes };
  }

  private remoteRange(
    commitment: Buffer,
    size: number,
    start: number,
    endInclusive: number,
    mayFill: boolean,
  ): Readable {
    const hex = commitmentToHex(commitment);
    const whole = start === 0 && endInclusive === size - 1;
    const temp = this.cache.tempPath(hex, `${randomBytes(6).toString('hex')}.fill`);
    return new RemoteRangeStream({
      track: hex,
      size,
      start,
      endInclusive,
      chunkHashes: () => this.readChunkHashes(commitment, size),
      fetch: (from, to) => this.getRange(commitment, size, from, to),
      // The list may come with the bytes (inline metadata): ask for it only if it did not.
      listWithBytes:
        chunkCount(size) <= INLINE_CHUNK_LIST_CHUNKS && !this.knownChunkList(hex, size),
      counters: this.ledger.counters,
      onIntegrityFailure: (track) => this.ledger.noteCorrupt(track),
      ...(mayFill &&
        whole &&
        this.cache.fits(size) && {
          fill: {
            tempPath: temp,
            admit: (hashes: Buffer) => this.cache.admit(hex, temp, size, hashes),
          },
        }),
    });
  }

  /**
   * A ranged GET: the body, and the chunk list when the object carries one in its metadata that
   * matches the commitment (remembered like one read from `.chunks`; one that does not match is
   * ignored, and the `.chunks` object decides).
   */
  private async getRange(
    commitment: Buffer,
    size: number,
    from: number,
    to: number,
  ): Promise<RemoteBytes> {
    const hex = commitmentToHex(commitment);
    try {
      const out = await this.rangedGet(this.key(hex), from, to);
      const body = out.body;
      if (out.contentLength !== undefined && out.contentLength !== to - from + 1) {
        body.destroy();
        throw this.ledger.integrityFailure(hex, `stored object answers ${out.contentLength} bytes`);
      }
      const inline = out.metadata(CHUNK_LIST_METADATA);
      const hashes = inline === undefined ? undefined : Buffer.from(inline, 'base64');
      if (hashes && verifyChunkList(commitment, size, hashes)) {
        this.rememberChunkList(hex, size, hashes);
        return { body, hashes };
      }
      return { body };
    } catch (err) {
      throw this.readError(hex, err);
    }
  }

  /** A whole small object, or undefined when absent. */
  private async getWhole(hex: string, name: string): Promise<Buffer | undefined> {
    try {
      const out = await this.client.send(
        new GetObjectCommand({ Bucket: this.options.s3.bucket, Key: this.key(name) }),
      );
      return Buffer.from(await out.Body!.transformToByteArray());
    } catch (err) {
      if (statusOf(err) === 404) return undefined;
      throw this.readError(hex, err);
    }
  }

  private async remoteSize(hex: string): Promise<number | undefined> {
    try {
      const out = await this.client.send(
        new HeadObjectCommand({ Bucket: this.options.s3.bucket, Key: this.key(hex) }),
      );
      return out.ContentLength;
    } catch (err) {
      if (statusOf(err) === 404) return undefined;
      throw this.readError(hex, err);
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
          Bucket: this.options.s3.bucket,
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
    const Bucket = this.options.s3.bucket;
    const Key = this.key(hex);
    const partBytes = this.options.s3.multipart_part_bytes;
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

  private async deleteObjects(hex: string): Promise<void> {
    this.chunkLists.delete(hex);
    await this.cache.evict(hex);
    for (const name of [hex, `${hex}.chunks`]) {
      await this.client.send(
        new DeleteObjectCommand({ Bucket: this.options.s3.bucket, Key: this.key(name) }),
      );
    }
  }

  private readError(hex: string, err: unknown): Error {
    if (err instanceof TrackStoreError) return err;
    if (statusOf(err) === 404) return new TrackNotFoundError(hex);
    return new TrackStoreUnavailableError(hex, new Error(describeS3Error(err)));
  }

  private key(name: string): string {
    return `${this.options.s3.prefix}${name}`;
  }

  private hexOf(commitment: Buffer): string {
    if (!Buffer.isBuffer(commitment) || commitment.length !== COMMITMENT_BYTES) {
      throw new RangeError(`a commitment is ${COMMITMENT_BYTES} bytes`);
    }
    return commitmentToHex(commitment);
  }

  private async locked<T>(hex: string, work: () => Promise<T>): Promise<T> {
    const before = this.locks.get(hex) ?? Promise.resolve();
    let done!: () => void;
    const mine = new Promise<void>((resolve) => (done = resolve));
    const chained = before.then(() => mine);
    this.locks.set(hex, chained);
    await before;
    try {
      return await work();
    } finally {
      done();
      if (this.locks.get(hex) === chained) this.locks.delete(hex);
    }
  }

  private noteRepaired(hex: string, reason: string): void {
    this.ledger.noteQuarantined(hex);
    this.logger.warn({
      msg: 'stored track failed verification; replaced by a verified upload',
      track: hex,
      reason,
    });
  }

  async close(): Promise<void> {
    await this.index.close();
  }
}

function statusOf(err: unknown): number | undefined {
  const meta = (err as { $metadata?: { httpStatusCode?: number } } | undefined)?.$metadata;
  if (meta?.httpStatusCode !== undefined) return meta.httpStatusCode;
  const name = (err as { name?: string } | undefined)?.name;
  return name === 'NotFound' || name === 'NoSuchKey' ? 404 : undefined;
}

function describeS3Error(err: unknown): string {
  const status = statusOf(err);
  const e = err as { name?: string; code?: string; message?: string };
  const what = e?.code ?? e?.name ?? 'error';
  return status !== undefined ? `${what}, HTTP ${status}` : `${what}: ${e?.message ?? ''}`.trim();
}

/** The chunk list as user metadata, for a track small enough (INLINE_CHUNK_LIST_CHUNKS). */
function inlineChunkList(size: number, hashes: Buffer): { Metadata?: Record<string, string> } {
  if (chunkCount(size) > INLINE_CHUNK_LIST_CHUNKS) return {};
  return { Metadata: { [CHUNK_LIST_METADATA]: hashes.toString('base64') } };
}
