import { Logger } from '@nestjs/common';
import { randomBytes } from 'node:crypto';
import { open, rm } from 'node:fs/promises';
import { Readable } from 'node:stream';
import { PRIVATE_FILE_MODE } from '../../config/private-files';
import type { TrackS3Config } from '../../config/storage.config';
import {
  CHUNK_HASH_BYTES,
  TrackDigest,
  rangeReadHex,
  assertTrackSize,
  chunkCount,
  storeKeyHex,
  verifyChunkList,
} from '../commitment';
import { readExactly } from '../durable-file';
import { hashTrackBody } from '../track-body';
import { IntegrityError, TrackNotFoundError } from '../track-errors';
import { failoverRange } from '../failover-range';
import { SqliteTrackReferences } from '../sqlite-track-references';
import { TrackReferences } from '../track-references';
import { IndexedTrackStore } from '../indexed-track-store';
import type {
  ReleaseOutcome,
  TrackIntegrityReport,
  TrackReference,
  TrackStoreStats,
} from '../track-store';
import { storedCopyFault, TrackStoreLedger } from '../track-store-ledger';
import { VerifiedChunkLists } from '../verified-chunk-lists';
import { BucketRangeReads } from './bucket-range-reads';
import { TrackBucket, TrackBucketOptions } from './track-bucket';
import { TrackCache } from './track-cache';

export interface S3TrackStoreOptions extends TrackBucketOptions {
  s3: TrackS3Config;
  cache: TrackCache;
  /** The writer's reference index (SQLite, `<data_dir>/tracks.references.sqlite`). */
  indexPath?: string;
  /** Shared references instead (replicas: RedisTrackReferences); wins over indexPath. */
  references?: TrackReferences;
  /** Hash cached chunks again on every read (storage.tracks.cache.verify_reads); default on. */
  verifyCacheReads?: boolean;
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
export class S3TrackStore extends IndexedTrackStore {
  /** The S3 requests (track-bucket.ts); this class verifies what they answer. */
  private readonly bucket: TrackBucket;
  /** Verified ranges from the bucket, and the cache fills they make (bucket-range-reads.ts). */
  private readonly reads: BucketRangeReads;
  private readonly chunkLists = new VerifiedChunkLists();
  private readonly ledger = new TrackStoreLedger();
  private readonly index: TrackReferences;
  /** Puts and releases of one track in this process run one at a time (the writer's GC). */
  private readonly locks = new Map<string, Promise<void>>();
  private readonly logger = new Logger('track-store');
  /** Cached copies that failed their check when read again (dropped, read from the bucket). */
  private cacheMismatches = 0;

  constructor(private readonly options: S3TrackStoreOptions) {
    super();
    this.bucket = new TrackBucket(options.s3, options);
    this.reads = new BucketRangeReads({
      bucket: this.bucket,
      cache: options.cache,
      chunkLists: this.chunkLists,
      ledger: this.ledger,
      chunkHashes: (commitment, size) => this.readChunkHashes(commitment, size),
    });
    if (!options.references && !options.indexPath) throw new Error('no reference index given');
    this.index = options.references ?? new SqliteTrackReferences(options.indexPath!);
  }

  get cache(): TrackCache {
    return this.options.cache;
  }

  async init(options: { createBucket?: boolean } = {}): Promise<void> {
    await this.cache.init();
    if (options.createBucket) await this.bucket.ensureExists();
  }

  /**
   * Whether the bucket holds the track (write paths ask, after claiming it): waits out a
   * deletion in progress, and asks the bucket itself, since another replica's collector may
   * have deleted what this replica still has in its cache.
   */
  async has(commitment: Buffer): Promise<boolean> {
    const hex = storeKeyHex(commitment);
    await this.index.awaitDeletion(commitment);
    return (await this.bucket.size(hex)) !== undefined;
  }

  async storedSize(commitment: Buffer): Promise<number | undefined> {
    const hex = storeKeyHex(commitment);
    const cached = this.cache.lookup(hex);
    if (cached !== undefined) return cached;
    return this.bucket.size(hex);
  }

  async put(commitment: Buffer, size: number, body: Readable): Promise<void> {
    const hex = storeKeyHex(commitment);
    assertTrackSize(size);
    await this.cache.init();
    await this.locked(hex, async () => {
      let corruption: string | undefined;
      // Claimed before: a deletion fenced meanwhile ends before the bucket is asked.
      await this.index.awaitDeletion(commitment).catch((err) => this.ledger.rejectPut(err, body));
      const stored = await this.bucket.size(hex).catch((err) => this.ledger.rejectPut(err, body));
      if (stored !== undefined) {
        corruption = await storedCopyFault(this.ledger, {
          hex,
          size,
          storedSize: stored,
          noun: 'object',
          forgetChunkList: () => this.chunkLists.forget(hex),
          readChunkList: () => this.readChunkHashes(commitment, size),
          // What is in the bucket must be intact, not the local cache's copy of it.
          readWhole: () => this.reads.open(commitment, size, 0, size - 1, false),
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
        await this.bucket.putTrack(hex, temp, size, digest.chunkHashes, corruption !== undefined);
      } catch (err) {
        await rm(temp, { force: true });
        return this.ledger.rejectPut(err, body);
      }
      if (corruption !== undefined) this.noteRepaired(hex, corruption);
      this.chunkLists.forget(hex);
      await this.cache.evict(hex);
      await this.cache.admit(hex, temp, size, digest.chunkHashes);
      this.ledger.stored(size);
    });
  }

  async readChunkHashes(commitment: Buffer, size: number): Promise<Buffer> {
    const hex = storeKeyHex(commitment);
    const known = this.chunkLists.get(hex, size);
    if (known) return known;
    const expectedBytes = chunkCount(size) * CHUNK_HASH_BYTES;
    let hashes: Buffer | undefined;
    if (this.cache.lookup(hex) !== undefined) {
      hashes = await readExactly(this.cache.chunksPath(hex), expectedBytes).catch(() => undefined);
      if (hashes && !verifyChunkList(commitment, size, hashes)) hashes = undefined;
      if (!hashes) await this.cache.evict(hex);
    }
    if (!hashes) {
      hashes = await this.bucket.chunkList(hex);
      if (hashes === undefined) {
        if ((await this.bucket.size(hex)) !== undefined) {
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
    this.chunkLists.remember(hex, size, hashes);
    return hashes;
  }

  openRange(commitment: Buffer, size: number, start: number, endInclusive: number): Readable {
    const hex = rangeReadHex(commitment, size, start, endInclusive);
    if (this.cache.lookup(hex) === size) {
      // The cached copy, hashed again (cache.verify_reads, on by default); a copy changed on
      // this disk is dropped and the rest of the range read from the bucket, verified.
      return failoverRange({
        track: hex,
        start,
        endInclusive,
        sources: [
          this.cache.rangeSource({
            hex,
            size,
            chunkHashes: () => this.readChunkHashes(commitment, size),
            counters: this.ledger.counters,
            verify: this.options.verifyCacheReads !== false,
            failed: (err) => {
              if (err instanceof IntegrityError) this.cacheMismatches++;
              this.chunkLists.forget(hex);
              void this.cache.evict(hex);
            },
          }),
          {
            name: 'bucket',
            open: (from, to) => this.reads.open(commitment, size, from, to, false),
            failed: () => undefined,
          },
        ],
      });
    }
    const whole = start === 0 && endInclusive === size - 1;
    if (!whole) this.reads.fillInBackground(commitment, size);
    return this.reads.open(commitment, size, start, endInclusive, true);
  }

  protected async referenceIndex(): Promise<TrackReferences> {
    return this.index;
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
    const hex = storeKeyHex(commitment);
    await this.index.drop(commitment, dead, decidedAt);
    return this.locked(hex, async (): Promise<ReleaseOutcome> => {
      const fence = await this.index.fenceDeletion(commitment, this.deletionFenceMs);
      if (fence === null) return { outcome: 'kept' };
      try {
        const size = await this.bucket.size(hex);
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
    const hex = storeKeyHex(commitment);
    return this.locked(hex, async () => {
      const existed = (await this.bucket.size(hex)) !== undefined;
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
    await this.bucket.checkReachable();
  }

  /** Bytes and the cache: used in /healthz details. */
  cacheReport(): { tracks: number; bytes: number; max_bytes: number } {
    return { tracks: this.cache.tracks, bytes: this.cache.bytes, max_bytes: this.cache.maxBytes };
  }

  private async deleteObjects(hex: string): Promise<void> {
    this.chunkLists.forget(hex);
    await this.cache.evict(hex);
    await this.bucket.deleteTrack(hex);
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
