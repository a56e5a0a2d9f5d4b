import type Redis from 'ioredis';
import {
  isUploadId,
  type CompletedUpload,
  type FoundUpload,
  type MultipartUpload,
} from './multipart-store';
import type { StoredPartRecord } from './stored-part';

/** A stored part: its bytes are the bucket object `object`. */
export interface SharedStoredPart extends StoredPartRecord {
  object: string;
}

/**
 * KEYS: record, parts, active, done, completion lock. ARGV: part number, part JSON, upload id,
 * now (ms). The part it replaced, '' if none, -1 when the upload is gone (aborted, expired,
 * completed), -2 while a completion holds the upload (its part list must not change under it).
 */
const SET_PART_SCRIPT = `
if redis.call('EXISTS', KEYS[1]) == 0 or redis.call('EXISTS', KEYS[4]) == 1 then return -1 end
if redis.call('EXISTS', KEYS[5]) == 1 then return -2 end
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
    done: string,
    completing: string,
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
 * The shared multipart uploads' records in Redis (the bytes of their parts are bucket objects):
 *
 *   <prefix>mpu:<id>           the upload's record (JSON), kept while completed is remembered
 *   <prefix>mpu:<id>:parts     hash: part number -> the stored part (JSON, with its object key)
 *   <prefix>mpu:<id>:done      the completed upload's answer (JSON)
 *   <prefix>mpu:open           sorted set of open uploads by start (for expiry)
 *   <prefix>mpu:open:<tape>    the same, per tape (max_uploads_per_tape, listing)
 *   <prefix>mpu:active         sorted set of open uploads by their last part (upload_idle_hours)
 *   <prefix>mpu:completed      sorted set of completed uploads by completion
 *
 * Creating an upload (under its tape's limit) and recording a part (only while its upload
 * exists) are one script each, so no replica sees half of either.
 */
export class SharedMultipartRecords {
  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
  ) {
    redis.defineCommand('tapeMpuSetPart', { numberOfKeys: 5, lua: SET_PART_SCRIPT });
    redis.defineCommand('tapeMpuCreate', { numberOfKeys: 4, lua: CREATE_SCRIPT });
  }

  /** Inserts the upload unless its tape has `limit` in progress: false then. */
  async create(record: MultipartUpload, limit: number): Promise<boolean> {
    const created = await this.commands.tapeMpuCreate(
      this.recordKey(record.uploadId),
      this.key('open'),
      this.key(`open:${record.tapeAddress}`),
      this.key('active'),
      JSON.stringify(record),
      String(Date.parse(record.initiated)),
      record.uploadId,
      String(limit),
    );
    return created === 1;
  }

  async load(uploadId: string): Promise<MultipartUpload | null> {
    if (!isUploadId(uploadId)) return null;
    const text = await this.redis.get(this.recordKey(uploadId));
    return text ? (JSON.parse(text) as MultipartUpload) : null;
  }

  /**
   * The upload's record and, once completed, its answer: one MGET. Null when there is no record
   * (an answer left without one answers nothing).
   */
  async loadUpload(uploadId: string): Promise<FoundUpload | null> {
    if (!isUploadId(uploadId)) return null;
    const [record, done] = await this.redis.mget(this.recordKey(uploadId), this.doneKey(uploadId));
    if (!record) return null;
    const upload = JSON.parse(record) as MultipartUpload;
    return done ? { upload, done: JSON.parse(done) as CompletedUpload } : { upload };
  }

  /** The upload's answer kept, and it leaves the open sets for the completed one. */
  async markCompleted(upload: MultipartUpload, done: CompletedUpload): Promise<void> {
    await this.redis
      .multi()
      .set(this.doneKey(upload.uploadId), JSON.stringify(done))
      .zrem(this.key('open'), upload.uploadId)
      .zrem(this.key(`open:${upload.tapeAddress}`), upload.uploadId)
      .zrem(this.key('active'), upload.uploadId)
      .zadd(this.key('completed'), Date.parse(done.completedAt), upload.uploadId)
      .exec();
  }

  /** The oldest completed uploads beyond the `kept` newest. */
  async completedBeyond(kept: number): Promise<string[]> {
    const excess = (await this.redis.zcard(this.key('completed'))) - kept;
    if (excess <= 0) return [];
    return this.redis.zrange(this.key('completed'), '0', String(excess - 1));
  }

  openCount(tapeAddress: string): Promise<number> {
    return this.redis.zcard(this.key(`open:${tapeAddress}`));
  }

  openIds(tapeAddress: string): Promise<string[]> {
    return this.redis.zrange(this.key(`open:${tapeAddress}`), '0', '-1');
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

  /** Open uploads begun at or before `startedBy`, or with no part since `activeBy` (ms). */
  async openBefore(startedBy: number, activeBy: number): Promise<string[]> {
    const old = await this.redis.zrangebyscore(this.key('open'), '-inf', String(startedBy));
    const idle = await this.redis.zrangebyscore(this.key('active'), '-inf', String(activeBy));
    return [...new Set([...old, ...idle])];
  }

  completedBefore(at: number): Promise<string[]> {
    return this.redis.zrangebyscore(this.key('completed'), '-inf', String(at));
  }

  async list(tapeAddress: string): Promise<MultipartUpload[]> {
    const ids = await this.openIds(tapeAddress);
    if (ids.length === 0) return [];
    const records = await this.redis.mget(...ids.map((id) => this.recordKey(id)));
    return records
      .filter((r): r is string => r !== null)
      .map((r) => JSON.parse(r) as MultipartUpload)
      .filter((u) => u.tapeAddress === tapeAddress);
  }

  /**
   * Records a part while its upload is open and no completion holds it: the part it replaced
   * (null if none), 'gone' when the upload was aborted, expired or completed meanwhile, or
   * 'completing' (nothing recorded) while a completion, on any replica, holds the upload.
   */
  async setPart(
    uploadId: string,
    part: SharedStoredPart,
  ): Promise<SharedStoredPart | null | 'gone' | 'completing'> {
    const previous = await this.commands.tapeMpuSetPart(
      this.recordKey(uploadId),
      this.partsKey(uploadId),
      this.key('active'),
      this.doneKey(uploadId),
      this.completionLockKey(uploadId),
      String(part.partNumber),
      JSON.stringify(part),
      uploadId,
      String(Date.now()),
    );
    if (previous === -1) return 'gone';
    if (previous === -2) return 'completing';
    return typeof previous === 'string' && previous !== ''
      ? (JSON.parse(previous) as SharedStoredPart)
      : null;
  }

  /** The upload's parts by number, or null when the upload is gone. */
  async parts(uploadId: string): Promise<SharedStoredPart[] | null> {
    const [exists, parts] = await Promise.all([
      this.redis.exists(this.recordKey(uploadId)),
      this.redis.hgetall(this.partsKey(uploadId)),
    ]);
    if (exists === 0) return null;
    return Object.values(parts)
      .map((json) => JSON.parse(json) as SharedStoredPart)
      .sort((a, b) => a.partNumber - b.partNumber);
  }

  /** Removes the upload's part records and returns them (their objects are the caller's). */
  async takeParts(uploadId: string): Promise<SharedStoredPart[]> {
    const parts = await this.redis.hgetall(this.partsKey(uploadId));
    await this.redis.del(this.partsKey(uploadId));
    return Object.values(parts).map((json) => JSON.parse(json) as SharedStoredPart);
  }

  /** Removes the upload's record, answer and set entries (not its parts: takeParts). */
  async remove(uploadId: string): Promise<void> {
    const record = await this.load(uploadId);
    await this.redis
      .multi()
      .del(this.recordKey(uploadId), this.doneKey(uploadId))
      .zrem(this.key('open'), uploadId)
      .zrem(this.key('active'), uploadId)
      .zrem(this.key('completed'), uploadId)
      .exec();
    if (record) await this.redis.zrem(this.key(`open:${record.tapeAddress}`), uploadId);
  }

  /** The key of the lock completions of this upload take over every replica. */
  completionLockKey(uploadId: string): string {
    return this.key(`${uploadId}:completing`);
  }

  private get commands(): MultipartCommands {
    return this.redis as unknown as MultipartCommands;
  }

  private key(name: string): string {
    return `${this.prefix}mpu:${name}`;
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
