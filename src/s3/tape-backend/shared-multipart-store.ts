import { S3Client } from '@aws-sdk/client-s3';
import { Logger } from '@nestjs/common';
import type Redis from 'ioredis';
import { Readable } from 'node:stream';
import { S3BackendNoSuchUploadError, S3BackendSlowDownError, S3PartInfo } from '../s3-backend';
import { LockWaitTimeoutError, RedisMutex } from '../../shared-state/redis-mutex';
import { FoundUpload, IncomingPart, MultipartStore, MultipartUpload } from './multipart-store';
import { NameLocks } from './name-locks';
import { PartObjects } from './part-objects';
import { SharedMultipartRecords, SharedStoredPart } from './shared-multipart-records';
import { PartDigester, toPartInfo } from './stored-part';
import { SharedSpoolLedger } from './shared-spool-ledger';

export interface SharedMultipartOptions {
  redis: Redis;
  /** Redis key prefix (storage.shared.key_prefix). */
  prefix: string;
  client: S3Client;
  bucket: string;
  /** Bucket key prefix of part objects: `<storage.tracks.s3.prefix>multipart/`. */
  objectPrefix: string;
  ledger: SharedSpoolLedger;
  expiryMs: number;
  /** Uploads with no part for this long are removed (`upload_idle_hours`). */
  idleMs: number;
  completedKept: number;
  /**
   * How long a request waits for another request's CompleteMultipartUpload of the same upload,
   * on any replica, before it gets a 503 SlowDown (10 minutes).
   */
  completionWaitMs?: number;
}

const COMPLETION_LEASE_MS = 30_000;
const COMPLETION_WAIT_MS = 10 * 60 * 1000;

/**
 * Multipart uploads every replica shares (docs/s3.md, "Multipart uploads across replicas"):
 * records in the shared Redis (shared-multipart-records.ts), part bytes in the track bucket
 * (part-objects.ts), so any replica takes any part and any replica completes the upload.
 *
 * A part's record is written only once its object is complete, and only while the upload
 * exists (one script), so an abort racing a part leaves neither. Each stored part holds its
 * bytes in the shared spool ledger until its upload ends. The bucket is not trusted: the parts'
 * bytes are hashed again as they are concatenated into the spool, and the object's commitment
 * is what gets published.
 */
export class SharedMultipartStore extends MultipartStore<SharedStoredPart> {
  private readonly logger = new Logger('s3-multipart');
  private readonly records: SharedMultipartRecords;
  private readonly objects: PartObjects;
  private readonly completions = new NameLocks();
  private readonly completionLock: RedisMutex;

  constructor(private readonly options: SharedMultipartOptions) {
    super();
    this.records = new SharedMultipartRecords(options.redis, options.prefix);
    this.objects = new PartObjects(options.client, options.bucket, options.objectPrefix);
    this.completionLock = new RedisMutex(
      options.redis,
      COMPLETION_LEASE_MS,
      options.completionWaitMs ?? COMPLETION_WAIT_MS,
    );
  }

  openUploads(tapeAddress: string): Promise<number> {
    return this.records.openCount(tapeAddress);
  }

  openTapes(): Promise<string[]> {
    return this.records.openTapes();
  }

  async removeExpired(now = Date.now()): Promise<number> {
    const cutoff = now - this.options.expiryMs;
    let removed = 0;
    for (const id of await this.records.openBefore(cutoff, now - this.options.idleMs)) {
      if (await this.removeOpen(id)) removed++;
    }
    for (const id of await this.records.completedBefore(cutoff)) await this.removeId(id);
    if (removed > 0) this.logger.log({ event: 'expired-uploads', removed });
    return removed;
  }

  protected openIds(tapeAddress: string): Promise<string[]> {
    return this.records.openIds(tapeAddress);
  }

  protected insert(record: MultipartUpload, maxOpenPerTape: number): Promise<boolean> {
    return this.records.create(record, maxOpenPerTape);
  }

  protected loadUpload(uploadId: string): Promise<FoundUpload | null> {
    return this.records.loadUpload(uploadId);
  }

  async markCompleted(
    upload: MultipartUpload,
    result: { etag: string; lastModified: Date },
  ): Promise<void> {
    if (this.options.completedKept === 0) return this.remove(upload);
    await this.records.markCompleted(upload, {
      etag: result.etag,
      lastModified: result.lastModified.toISOString(),
      completedAt: new Date().toISOString(),
    });
    await this.removeParts(upload.uploadId);
    for (const id of await this.records.completedBeyond(this.options.completedKept)) {
      await this.removeId(id);
    }
  }

  list(tapeAddress: string): Promise<MultipartUpload[]> {
    return this.records.list(tapeAddress);
  }

  protected async receivePart({
    upload,
    partNumber,
    body,
    hold,
  }: IncomingPart): Promise<S3PartInfo> {
    const object = this.objects.newKey(upload.uploadId, partNumber);
    const hashing = new PartDigester(hold.bytes, upload.checksum?.algorithm);
    body.once('error', (err) => hashing.destroy(err));
    body.pipe(hashing);
    try {
      await this.objects.put(object, hashing, hold.bytes);
    } catch (error) {
      if (!body.destroyed) body.destroy();
      await this.objects.delete(object);
      // The body's own error (cut off, too long) explains it better than the store's.
      throw hashing.errored ?? body.errored ?? error;
    }
    const part: SharedStoredPart = { ...hashing.record(partNumber), object };
    await this.options.ledger.keepAsPart(hold, upload.uploadId, partNumber, part.size);
    let previous: SharedStoredPart | null | 'gone';
    try {
      previous = await this.recordPart(upload.uploadId, part);
    } catch (error) {
      // Waited too long (SlowDown) or Redis failed: the part was never recorded, keep nothing.
      await this.objects.delete(object);
      await this.unkeepPart(upload, partNumber);
      throw error;
    }
    if (previous === 'gone') {
      // Aborted, expired or completed meanwhile: keep nothing.
      await this.options.ledger.releasePart(upload.uploadId, partNumber);
      await this.objects.delete(object);
      throw new S3BackendNoSuchUploadError(upload.uploadId);
    }
    if (previous !== null) await this.objects.delete(previous.object);
    return toPartInfo(part);
  }

  protected async concatenate(
    _upload: MultipartUpload,
    parts: SharedStoredPart[],
  ): Promise<Readable> {
    return this.objects.concatenate(parts);
  }

  /** Records a part once no completion holds its upload: the part it replaced, or 'gone'. */
  private async recordPart(
    uploadId: string,
    part: SharedStoredPart,
  ): Promise<SharedStoredPart | null | 'gone'> {
    let previous = await this.records.setPart(uploadId, part);
    while (previous === 'completing') {
      // The completion joins the objects of the part list it read: the list does not change,
      // and no object of it is deleted, until it lets go. Then the upload is open or gone.
      await this.completing(uploadId, () => Promise.resolve());
      previous = await this.records.setPart(uploadId, part);
    }
    return previous;
  }

  /**
   * Undoes `keepAsPart` for a part whose record was refused on an open upload: the part number's
   * budget given back, or, when an earlier part of that number is still recorded, held at that
   * part's size again (`keepAsPart` had moved the number's hold to the refused part).
   */
  private async unkeepPart(upload: MultipartUpload, partNumber: number): Promise<void> {
    const { uploadId, tapeAddress } = upload;
    const recorded = await this.records.parts(uploadId);
    const earlier = recorded?.find((stored) => stored.partNumber === partNumber);
    if (earlier === undefined) await this.options.ledger.releasePart(uploadId, partNumber);
    else await this.options.ledger.restorePart(tapeAddress, uploadId, partNumber, earlier.size);
  }

  /**
   * One completion at a time in this process, then over every replica (a Redis lock). A
   * request that waits longer than `completionWaitMs` for another's is told to retry later
   * (503 SlowDown), as S3 clients do with back-off.
   */
  async completing<T>(uploadId: string, work: () => Promise<T>): Promise<T> {
    try {
      return await this.completions.run([uploadId], () =>
        this.completionLock.run(this.records.completionLockKey(uploadId), work),
      );
    } catch (error) {
      if (!(error instanceof LockWaitTimeoutError)) throw error;
      throw new S3BackendSlowDownError(
        `another CompleteMultipartUpload of upload ${uploadId} has held it for ${error.waitedMs} ms`,
      );
    }
  }

  protected async removeId(uploadId: string): Promise<void> {
    await this.records.remove(uploadId);
    await this.removeParts(uploadId);
  }

  /** Deletes the part objects and gives their bytes back to the ledger. */
  private async removeParts(uploadId: string): Promise<void> {
    for (const part of await this.records.takeParts(uploadId)) {
      await this.objects.delete(part.object);
      await this.options.ledger.releasePart(uploadId, part.partNumber);
    }
  }

  protected async storedParts(upload: MultipartUpload): Promise<SharedStoredPart[]> {
    const parts = await this.records.parts(upload.uploadId);
    if (parts === null) throw new S3BackendNoSuchUploadError(upload.uploadId);
    return parts;
  }
}
