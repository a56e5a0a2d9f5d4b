import {
  DeleteObjectCommand,
  GetObjectCommand,
  PutObjectCommand,
  S3Client,
} from '@aws-sdk/client-s3';
import { Logger } from '@nestjs/common';
import type Redis from 'ioredis';
import { randomBytes } from 'node:crypto';
import { Readable } from 'node:stream';
import { S3BackendNoSuchUploadError, S3CompletedPart, S3PartInfo } from '../s3-backend';
import { RedisMutex } from '../../shared-state/redis-mutex';
import { CompletedUpload, MultipartStore, MultipartUpload } from './multipart-store';
import { NameLocks } from './name-locks';
import { PartDigester, StoredPartRecord, toPartInfo } from './stored-part';
import type { SpoolHold } from './spool-budget';
import { SharedSpoolLedger } from './shared-spool-ledger';

/** A stored part: its bytes are the bucket object `object`. */
interface StoredPart extends StoredPartRecord {
  object: string;
}

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
}

const UPLOAD_ID = /^[0-9a-f]{32}$/;

/**
 * KEYS: record, parts, active. ARGV: part number, part JSON, upload id, now (ms). The part it
 * replaced, '' if none, or -1 when the upload is gone.
 */
const SET_PART_SCRIPT = `
if redis.call('EXISTS', KEYS[1]) == 0 then return -1 end
local old = redis.call('HGET', KEYS[2], ARGV[1]) or ''
redis.call('HSET', KEYS[2], ARGV[1], ARGV[2])
redis.call('ZADD', KEYS[3], ARGV[4], ARGV[3])
return old
`;

/**
 * KEYS: record, open, open:<tape>, active. ARGV: record JSON, start (ms), upload id, the tape's
 * limit. 1 when created, 0 when the tape already has that many uploads in progress.
 */
const CREATE_SCRIPT = `
if redis.call('ZCARD', KEYS[3]) >= tonumber(ARGV[4]) then return 0 end
redis.call('SET', KEYS[1], ARGV[1])
redis.call('ZADD', KEYS[2], ARGV[2], ARGV[3])
redis.call('ZADD', KEYS[3], ARGV[2], ARGV[3])
redis.call('ZADD', KEYS[4], ARGV[2], ARGV[3])
return 1
`;

interface MultipartCommands {
  tapeMpuSetPart(
    record: string,
    parts: string,
    active: string,
    n: string,
    json: string,
    id: string,
    now: string,
  ): Promise<string | number>;
  tapeMpuCreate(
    record: string,
    open: string,
    tapeOpen: string,
    active: string,
    json: string,
    at: string,
    id: string,
    limit: string,
  ): Promise<number>;
}

/**
 * Multipart uploads every replica shares (docs/s3.md, "Multipart uploads across replicas"):
 * records in the shared Redis, part bytes in the track bucket, so any replica takes any part
 * and any replica completes the upload.
 *
 *   <prefix>mpu:<id>           the upload's record (JSON), kept while completed is remembered
 *   <prefix>mpu:<id>:parts     hash: part number -> the stored part (JSON, with its object key)
 *   <prefix>mpu:<id>:done      the completed upload's answer (JSON)
 *   <prefix>mpu:open           sorted set of open uploads by start (for expiry)
 *   <prefix>mpu:open:<tape>    the same, per tape (max_uploads_per_tape, listing)
 *   <prefix>mpu:active         sorted set of open uploads by their last part (upload_idle_hours)
 *   <prefix>mpu:completed      sorted set of completed uploads by completion
 *   bucket: <objectPrefix><id>/<n>-<random>   one part's bytes
 *
 * A part's record is written only once its object is complete, and only while the upload
 * exists (one script), so an abort racing a part leaves neither. Each stored part holds its
 * bytes in the shared spool ledger until its upload ends. The bucket is not trusted: the parts'
 * bytes are hashed again as they are concatenated into the spool, and the object's commitment
 * is what gets published.
 */
export class SharedMultipartStore extends MultipartStore {
  private readonly logger = new Logger('s3-multipart');
  private readonly completions = new NameLocks();
  private readonly completionLock: RedisMutex;

  constructor(private readonly options: SharedMultipartOptions) {
    super();
    options.redis.defineCommand('tapeMpuSetPart', { numberOfKeys: 3, lua: SET_PART_SCRIPT });
    options.redis.defineCommand('tapeMpuCreate', { numberOfKeys: 4, lua: CREATE_SCRIPT });
    this.completionLock = new RedisMutex(options.redis);
  }

  async openUploads(tapeAddress: string): Promise<number> {
    return this.redis.zcard(this.key(`open:${tapeAddress}`));
  }

  async openTapes(): Promise<string[]> {
    const ids = await this.redis.zrange(this.key('open'), '0', '-1');
    const tapes = new Set<string>();
    for (let i = 0; i < ids.length; i += 1000) {
      const records = await this.redis.mget(
        ...ids.slice(i, i + 1000).map((id) => this.recordKey(id)),
      );
      for (const r of records) if (r) tapes.add((JSON.parse(r) as MultipartUpload).tapeAddress);
    }
    return [...tapes];
  }

  async removeExpired(now = Date.now()): Promise<number> {
    const cutoff = String(now - this.options.expiryMs);
    const old = await this.redis.zrangebyscore(this.key('open'), '-inf', cutoff);
    const idleCutoff = String(now - this.options.idleMs);
    const idle = await this.redis.zrangebyscore(this.key('active'), '-inf', idleCutoff);
    const open = [...new Set([...old, ...idle])];
    for (const id of open) await this.removeId(id);
    const done = await this.redis.zrangebyscore(this.key('completed'), '-inf', cutoff);
    for (const id of done) await this.removeId(id);
    if (open.length > 0) this.logger.log({ event: 'expired-uploads', removed: open.length });
    return open.length;
  }

  async removeTapeUploads(tapeAddress: string): Promise<number> {
    const ids = await this.redis.zrange(this.key(`open:${tapeAddress}`), '0', '-1');
    for (const id of ids) await this.removeId(id);
    return ids.length;
  }

  async create(
    upload: Omit<MultipartUpload, 'uploadId' | 'initiated'>,
    maxOpenPerTape: number,
  ): Promise<MultipartUpload | null> {
    const record: MultipartUpload = {
      ...upload,
      uploadId: randomBytes(16).toString('hex'),
      initiated: new Date().toISOString(),
    };
    const created = await this.commands.tapeMpuCreate(
      this.recordKey(record.uploadId),
      this.key('open'),
      this.key(`open:${record.tapeAddress}`),
      this.key('active'),
      JSON.stringify(record),
      String(Date.parse(record.initiated)),
      record.uploadId,
      String(maxOpenPerTape),
    );
    return created === 1 ? record : null;
  }

  async get(tapeAddress: string, key: string, uploadId: string): Promise<MultipartUpload> {
    const upload = await this.load(uploadId);
    if (!upload || upload.tapeAddress !== tapeAddress || upload.key !== key) {
      throw new S3BackendNoSuchUploadError(uploadId);
    }
    if ((await this.redis.exists(this.doneKey(uploadId))) === 1) {
      throw new S3BackendNoSuchUploadError(uploadId);
    }
    return upload;
  }

  async completed(
    tapeAddress: string,
    key: string,
    uploadId: string,
  ): Promise<CompletedUpload | null> {
    if (!UPLOAD_ID.test(uploadId)) return null;
    const [done, record] = await this.redis.mget(this.doneKey(uploadId), this.recordKey(uploadId));
    if (!done || !record) return null;
    const upload = JSON.parse(record) as MultipartUpload;
    if (upload.tapeAddress !== tapeAddress || upload.key !== key) return null;
    return JSON.parse(done) as CompletedUpload;
  }

  async markCompleted(
    upload: MultipartUpload,
    result: { etag: string; lastModified: Date },
  ): Promise<void> {
    if (this.options.completedKept === 0) return this.remove(upload);
    const now = new Date();
    const record: CompletedUpload = {
      etag: result.etag,
      lastModified: result.lastModified.toISOString(),
      completedAt: now.toISOString(),
    };
    await this.redis
      .multi()
      .set(this.doneKey(upload.uploadId), JSON.stringify(record))
      .zrem(this.key('open'), upload.uploadId)
      .zrem(this.key(`open:${upload.tapeAddress}`), upload.uploadId)
      .zrem(this.key('active'), upload.uploadId)
      .zadd(this.key('completed'), now.getTime(), upload.uploadId)
      .exec();
    await this.removeParts(upload.uploadId);
    const excess = (await this.redis.zcard(this.key('completed'))) - this.options.completedKept;
    if (excess > 0) {
      for (const id of await this.redis.zrange(this.key('completed'), '0', String(excess - 1))) {
        await this.removeId(id);
      }
    }
  }

  async list(tapeAddress: string): Promise<MultipartUpload[]> {
    const ids = await this.redis.zrange(this.key(`open:${tapeAddress}`), '0', '-1');
    if (ids.length === 0) return [];
    const records = await this.redis.mget(...ids.map((id) => this.recordKey(id)));
    return records
      .filter((r): r is string => r !== null)
      .map((r) => JSON.parse(r) as MultipartUpload)
      .filter((u) => u.tapeAddress === tapeAddress);
  }

  async writePart(
    upload: MultipartUpload,
    partNumber: number,
    body: Readable,
    hold: SpoolHold,
  ): Promise<S3PartInfo> {
    let kept = false;
    try {
      const part = await this.receivePart(upload, partNumber, body, hold);
      kept = true;
      return part;
    } finally {
      if (!kept) hold.release();
    }
  }

  private async receivePart(
    upload: MultipartUpload,
    partNumber: number,
    body: Readable,
    hold: SpoolHold,
  ): Promise<S3PartInfo> {
    const object = `${this.options.objectPrefix}${upload.uploadId}/${partNumber}-${randomBytes(6).toString('hex')}`;
    const hashing = new PartDigester(hold.bytes, upload.checksum?.algorithm);
    body.once('error', (err) => hashing.destroy(err));
    body.pipe(hashing);
    try {
      await this.options.client.send(
        new PutObjectCommand({
          Bucket: this.options.bucket,
          Key: object,
          Body: hashing,
          ContentLength: hold.bytes,
          ContentType: 'application/octet-stream',
        }),
      );
    } catch (error) {
      if (!body.destroyed) body.destroy();
      await this.deleteObject(object);
      // The body's own error (cut off, too long) explains it better than the store's.
      throw hashing.errored ?? body.errored ?? error;
    }
    const part: StoredPart = { ...hashing.record(partNumber), object };
    await this.options.ledger.keepAsPart(hold, upload.uploadId, partNumber, part.size);
    const previous = await this.commands.tapeMpuSetPart(
      this.recordKey(upload.uploadId),
      this.partsKey(upload.uploadId),
      this.key('active'),
      String(partNumber),
      JSON.stringify(part),
      upload.uploadId,
      String(Date.now()),
    );
    if (previous === -1) {
      // Aborted (or expired) meanwhile: keep nothing.
      await this.options.ledger.releasePart(upload.uploadId, partNumber);
      await this.deleteObject(object);
      throw new S3BackendNoSuchUploadError(upload.uploadId);
    }
    if (typeof previous === 'string' && previous !== '') {
      await this.deleteObject((JSON.parse(previous) as StoredPart).object);
    }
    return toPartInfo(part);
  }

  async parts(upload: MultipartUpload): Promise<S3PartInfo[]> {
    return (await this.storedParts(upload)).map(toPartInfo);
  }

  async partSizes(upload: MultipartUpload): Promise<Map<number, number>> {
    return new Map((await this.storedParts(upload)).map((p) => [p.partNumber, p.size]));
  }

  async concatenate(upload: MultipartUpload, parts: S3CompletedPart[]): Promise<Readable> {
    const stored = new Map((await this.storedParts(upload)).map((p) => [p.partNumber, p]));
    const objects = parts.map((p) => {
      const part = stored.get(p.partNumber);
      if (!part) throw new S3BackendNoSuchUploadError(upload.uploadId);
      return part;
    });
    const { client, bucket } = this.options;
    return Readable.from(
      (async function* () {
        for (const part of objects) {
          const out = await client.send(new GetObjectCommand({ Bucket: bucket, Key: part.object }));
          let received = 0;
          for await (const chunk of out.Body as Readable) {
            received += (chunk as Buffer).length;
            yield chunk as Buffer;
          }
          if (received !== part.size) {
            throw new Error(
              `part ${part.partNumber} has ${received} bytes in the store, not ${part.size}`,
            );
          }
        }
      })(),
    );
  }

  async remove(upload: MultipartUpload): Promise<void> {
    await this.removeId(upload.uploadId);
  }

  /** One completion at a time in this process, then over every replica (a Redis lock). */
  completing<T>(uploadId: string, work: () => Promise<T>): Promise<T> {
    return this.completions.run([uploadId], () =>
      this.completionLock.run(this.key(`${uploadId}:completing`), work),
    );
  }

  private async removeId(uploadId: string): Promise<void> {
    const record = await this.load(uploadId);
    await this.redis
      .multi()
      .del(this.recordKey(uploadId), this.doneKey(uploadId))
      .zrem(this.key('open'), uploadId)
      .zrem(this.key('active'), uploadId)
      .zrem(this.key('completed'), uploadId)
      .exec();
    if (record) await this.redis.zrem(this.key(`open:${record.tapeAddress}`), uploadId);
    await this.removeParts(uploadId);
  }

  /** Deletes the part objects and gives their bytes back to the ledger. */
  private async removeParts(uploadId: string): Promise<void> {
    const parts = await this.redis.hgetall(this.partsKey(uploadId));
    await this.redis.del(this.partsKey(uploadId));
    for (const [n, json] of Object.entries(parts)) {
      await this.deleteObject((JSON.parse(json) as StoredPart).object);
      await this.options.ledger.releasePart(uploadId, Number(n));
    }
  }

  private async storedParts(upload: MultipartUpload): Promise<StoredPart[]> {
    const [exists, parts] = await Promise.all([
      this.redis.exists(this.recordKey(upload.uploadId)),
      this.redis.hgetall(this.partsKey(upload.uploadId)),
    ]);
    if (exists === 0) throw new S3BackendNoSuchUploadError(upload.uploadId);
    return Object.values(parts)
      .map((json) => JSON.parse(json) as StoredPart)
      .sort((a, b) => a.partNumber - b.partNumber);
  }

  private async load(uploadId: string): Promise<MultipartUpload | null> {
    if (!UPLOAD_ID.test(uploadId)) return null;
    const text = await this.redis.get(this.recordKey(uploadId));
    return text ? (JSON.parse(text) as MultipartUpload) : null;
  }

  private async deleteObject(object: string): Promise<void> {
    await this.options.client
      .send(new DeleteObjectCommand({ Bucket: this.options.bucket, Key: object }))
      .catch((err: Error) =>
        this.logger.warn({ msg: 'part object not deleted', object, error: err.message }),
      );
  }

  private get redis(): Redis {
    return this.options.redis;
  }

  private get commands(): MultipartCommands {
    return this.options.redis as unknown as MultipartCommands;
  }

  private key(name: string): string {
    return `${this.options.prefix}mpu:${name}`;
  }

  private recordKey(uploadId: string): string {
    return this.key(uploadId);
  }

  private partsKey(uploadId: string): string {
    return this.key(`${uploadId}:parts`);
  }

  private doneKey(uploadId: string): string {
    return this.key(`${uploadId}:done`);
  }
}
