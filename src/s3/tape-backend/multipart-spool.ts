import { Injectable, Logger, OnModuleInit } from '@nestjs/common';
import { randomBytes } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, readdir, readFile, rm, stat } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { S3Config } from '../../config/s3.config';
import { StorageConfig } from '../../config/storage.config';
import { S3BackendNoSuchUploadError, S3PartInfo } from '../s3-backend';
import {
  CompletedUpload,
  FoundUpload,
  IncomingPart,
  isUploadId,
  MultipartStore,
  MultipartUpload,
} from './multipart-store';
import { NameLocks } from './name-locks';
import { PartDigester, StoredPartRecord, toPartInfo } from './stored-part';
import { SpoolBudget, SpoolHold } from './spool-budget';
import { sweepOldEntries } from './spool-sweep';
import { StagedJson, stageJson, writeJsonAtomically } from './staged-json';
import { isMissing } from '../../tracks/durable-file';
import { makeDirectoryAsync } from '../../config/directories';
import { PRIVATE_DIRECTORY_MODE } from '../../config/private-files';

interface StoredPart extends StoredPartRecord {
  file: string;
}

/** What this process knows of an open upload: its tape and the budget its parts hold. */
interface OpenUpload {
  tapeAddress: string;
  initiated: number;
  /** When it began or last stored a part (ms): `upload_idle_hours` counts from here. */
  active: number;
  parts: Map<number, SpoolHold>;
}

/**
 * Multipart uploads in progress, on disk under `<data_dir>/s3-multipart/<uploadId>/`: an
 * `upload.json`, and per part a data file plus `part-<n>.json`, which is written (atomically,
 * by rename) only once the part's bytes are complete. So a restart loses nothing acknowledged,
 * and a part cut off mid-body leaves no record. The part ETag is the hex SHA-256 of its bytes.
 *
 * Every stored part holds its bytes in the SpoolBudget until its upload is completed, aborted,
 * expires, idles or its tape ends (MultipartSweeper); the holds are rebuilt from disk at start-up.
 */
@Injectable()
export class MultipartSpool extends MultipartStore<StoredPart> implements OnModuleInit {
  readonly dir: string;
  private readonly logger = new Logger('s3-multipart');
  private readonly open = new Map<string, OpenUpload>();
  private readonly expiryMs: number;
  private readonly idleMs: number;
  /** Completed uploads remembered, by id, oldest first (the value: when, in ms). */
  private readonly completedAt = new Map<string, number>();
  private readonly completedKept: number;
  private readonly completions = new NameLocks();

  constructor(
    storage: StorageConfig,
    private readonly budget: SpoolBudget,
    s3: S3Config,
  ) {
    super();
    this.dir = resolve(storage.data_dir, 's3-multipart');
    this.expiryMs = s3.upload_expiry_hours * 60 * 60 * 1000;
    this.idleMs = s3.upload_idle_hours * 60 * 60 * 1000;
    this.completedKept = s3.completed_uploads_kept;
  }

  async onModuleInit(): Promise<void> {
    await makeDirectoryAsync(this.dir);
    // Directories untouched for the whole expiry (unreadable leftovers included) go first.
    const swept = await sweepOldEntries(this.dir, this.expiryMs);
    if (swept > 0) this.logger.log(`removed ${swept} expired multipart uploads`);
    const completed: [string, number][] = [];
    for (const id of await readdir(this.dir)) {
      const upload = await this.load(id);
      if (!upload) continue;
      const done = await this.readCompleted(id);
      if (done) completed.push([id, Date.parse(done.completedAt)]);
      else await this.index(upload);
    }
    completed.sort((a, b) => a[1] - b[1]);
    for (const [id, at] of completed) this.completedAt.set(id, at);
    await this.forgetCompletedBeyondLimit();
    await this.removeExpired();
  }

  /** Uploads in progress on a tape (as this process knows them). */
  openUploads(tapeAddress: string): number {
    let count = 0;
    for (const upload of this.open.values()) if (upload.tapeAddress === tapeAddress) count++;
    return count;
  }

  async openTapes(): Promise<string[]> {
    return [...new Set([...this.open.values()].map((u) => u.tapeAddress))];
  }

  async removeExpired(now = Date.now()): Promise<number> {
    let removed = 0;
    for (const [uploadId, upload] of [...this.open]) {
      if (now - upload.initiated <= this.expiryMs && now - upload.active <= this.idleMs) continue;
      if (await this.removeOpen(uploadId)) removed++;
    }
    for (const [uploadId, at] of [...this.completedAt]) {
      if (now - at <= this.expiryMs) break;
      await this.removeId(uploadId);
    }
    if (removed > 0) this.logger.log({ event: 'expired-uploads', removed });
    return removed;
  }

  protected async openIds(tapeAddress: string): Promise<string[]> {
    return [...this.open].filter(([, u]) => u.tapeAddress === tapeAddress).map(([id]) => id);
  }

  protected async insert(record: MultipartUpload, maxOpenPerTape: number): Promise<boolean> {
    // Counted and taken before the first await: creates running at once each see the others.
    if (this.openUploads(record.tapeAddress) >= maxOpenPerTape) return false;
    const initiated = Date.parse(record.initiated);
    this.open.set(record.uploadId, {
      tapeAddress: record.tapeAddress,
      initiated,
      active: initiated,
      parts: new Map(),
    });
    try {
      const dir = this.uploadDir(record.uploadId);
      await mkdir(dir, { recursive: false, mode: PRIVATE_DIRECTORY_MODE });
      await writeJsonAtomically(join(dir, 'upload.json'), record);
    } catch (error) {
      this.open.delete(record.uploadId);
      throw error;
    }
    return true;
  }

  protected async loadUpload(uploadId: string): Promise<FoundUpload | null> {
    const upload = await this.load(uploadId);
    if (!upload) return null;
    if (!this.completedAt.has(uploadId)) return { upload };
    // Completed: its answer, or nothing when that cannot be read (neither open nor answerable).
    const done = await this.readCompleted(uploadId);
    return done ? { upload, done } : null;
  }

  /**
   * Records that the upload became an object (its parts are deleted, its budget given back),
   * so a retried CompleteMultipartUpload answers the same result for upload_expiry_hours;
   * at most `completed_uploads_kept` are remembered, the oldest forgotten first.
   */
  async markCompleted(
    upload: MultipartUpload,
    result: { etag: string; lastModified: Date },
  ): Promise<void> {
    if (this.completedKept === 0) return this.remove(upload);
    const dir = this.uploadDir(upload.uploadId);
    const now = new Date();
    const record: CompletedUpload = {
      etag: result.etag,
      lastModified: result.lastModified.toISOString(),
      completedAt: now.toISOString(),
    };
    await writeJsonAtomically(join(dir, 'completed.json'), record);
    this.completedAt.set(upload.uploadId, now.getTime());
    const open = this.open.get(upload.uploadId);
    this.open.delete(upload.uploadId);
    open?.parts.forEach((hold) => hold.release());
    for (const name of await readdir(dir).catch(() => [] as string[])) {
      if (name.startsWith('part-')) await rm(join(dir, name), { force: true });
    }
    await this.forgetCompletedBeyondLimit();
  }

  async list(tapeAddress: string): Promise<MultipartUpload[]> {
    const ids = await readdir(this.dir).catch(() => [] as string[]);
    const uploads = await Promise.all(
      ids.filter((id) => !this.completedAt.has(id)).map((id) => this.load(id)),
    );
    return uploads.filter((u): u is MultipartUpload => u?.tapeAddress === tapeAddress);
  }

  protected async receivePart(incoming: IncomingPart): Promise<S3PartInfo> {
    const { upload, partNumber, body, hold } = incoming;
    const dir = this.uploadDir(upload.uploadId);
    const file = `part-${partNumber}-${randomBytes(6).toString('hex')}.bin`;
    const hashing = new PartDigester(hold.bytes, upload.checksum?.algorithm);
    try {
      await pipeline(
        body,
        hashing,
        createWriteStream(join(dir, file), { flags: 'wx', mode: 0o600 }),
      );
    } catch (error) {
      await rm(join(dir, file), { force: true });
      throw isMissing(error) ? new S3BackendNoSuchUploadError(upload.uploadId) : error;
    }
    const part: StoredPart = { ...hashing.record(partNumber), file };
    let record: StagedJson;
    try {
      record = await stageJson(join(dir, `part-${partNumber}.json`), part);
    } catch (error) {
      await rm(join(dir, file), { force: true });
      throw isMissing(error) ? new S3BackendNoSuchUploadError(upload.uploadId) : error;
    }
    // The bytes and the record came in unlocked (parts arrive in parallel); the part list changes
    // only under the completion lock, so a completion joins the very files it read. A part that
    // waited for a completion that succeeded is refused, as S3 refuses a part of a completed
    // upload. The part replaced is deleted after: no record names it, so no completion reads it.
    const previous = await this.completions.run([upload.uploadId], () =>
      this.recordPart(upload, part, record, hold),
    );
    if (previous && previous.file !== file) await rm(join(dir, previous.file), { force: true });
    return toPartInfo(part);
  }

  /** Makes a received part the upload's part of its number: the part it replaced, if any. */
  private async recordPart(
    upload: MultipartUpload,
    part: StoredPart,
    record: StagedJson,
    received: SpoolHold,
  ): Promise<StoredPart | null> {
    const { partNumber, file } = part;
    let hold = received;
    const dir = this.uploadDir(upload.uploadId);
    if (this.completedAt.has(upload.uploadId)) {
      await record.discard();
      await rm(join(dir, file), { force: true });
      throw new S3BackendNoSuchUploadError(upload.uploadId);
    }
    const previous = await this.readPart(dir, partNumber);
    try {
      await record.commit();
    } catch (error) {
      // Aborted meanwhile (the directory is gone) or the disk failed: keep nothing.
      await rm(join(dir, file), { force: true });
      throw isMissing(error) ? new S3BackendNoSuchUploadError(upload.uploadId) : error;
    }
    const open = this.open.get(upload.uploadId) ?? (await this.index(upload));
    if (hold.bytes > part.size) {
      // Declared longer than received cannot pass the body checks; keep the count exact anyway.
      hold.release();
      hold = this.budget.hold(upload.tapeAddress, part.size);
    }
    open.parts.get(partNumber)?.release();
    open.parts.set(partNumber, hold);
    open.active = Date.now();
    return previous;
  }

  /** The parts' bytes one after another, streamed from their files. */
  protected async concatenate(upload: MultipartUpload, parts: StoredPart[]): Promise<Readable> {
    const dir = this.uploadDir(upload.uploadId);
    const files = parts.map((part) => join(dir, part.file));
    return Readable.from(
      (async function* () {
        for (const file of files) yield* createReadStream(file, { highWaterMark: 1024 * 1024 });
      })(),
    );
  }

  completing<T>(uploadId: string, work: () => Promise<T>): Promise<T> {
    return this.completions.run([uploadId], work);
  }

  private async forgetCompletedBeyondLimit(): Promise<void> {
    while (this.completedAt.size > this.completedKept) {
      const oldest = this.completedAt.keys().next().value!;
      await this.removeId(oldest);
    }
  }

  private async readCompleted(uploadId: string): Promise<CompletedUpload | null> {
    try {
      const text = await readFile(join(this.uploadDir(uploadId), 'completed.json'), 'utf8');
      return JSON.parse(text) as CompletedUpload;
    } catch {
      return null;
    }
  }

  protected async removeId(uploadId: string): Promise<void> {
    this.completedAt.delete(uploadId);
    await rm(this.uploadDir(uploadId), { recursive: true, force: true });
    const open = this.open.get(uploadId);
    this.open.delete(uploadId);
    open?.parts.forEach((hold) => hold.release());
  }

  /**
   * Starts counting an upload found on disk: its stored parts hold their bytes. Its last activity
   * is its directory's last change (a part's record is renamed into it when the part is stored).
   */
  private async index(upload: MultipartUpload): Promise<OpenUpload> {
    const parts = await this.storedParts(upload).catch(() => [] as StoredPart[]);
    const initiated = Date.parse(upload.initiated);
    const changed = await stat(this.uploadDir(upload.uploadId)).catch(() => undefined);
    const open: OpenUpload = {
      tapeAddress: upload.tapeAddress,
      initiated,
      active: Math.max(initiated, changed?.mtimeMs ?? 0),
      parts: new Map(
        parts.map((p) => [p.partNumber, this.budget.hold(upload.tapeAddress, p.size)]),
      ),
    };
    this.open.get(upload.uploadId)?.parts.forEach((hold) => hold.release());
    this.open.set(upload.uploadId, open);
    return open;
  }

  private async load(uploadId: string): Promise<MultipartUpload | null> {
    // Checked before it touches a path: an upload id is never a path of its own choosing.
    if (!isUploadId(uploadId)) return null;
    try {
      const text = await readFile(join(this.uploadDir(uploadId), 'upload.json'), 'utf8');
      return JSON.parse(text) as MultipartUpload;
    } catch {
      return null;
    }
  }

  protected async storedParts(upload: MultipartUpload): Promise<StoredPart[]> {
    const dir = this.uploadDir(upload.uploadId);
    const names = await readdir(dir).catch(() => null);
    if (names === null) throw new S3BackendNoSuchUploadError(upload.uploadId);
    const numbers = names
      .map((n) => /^part-(\d+)\.json$/.exec(n)?.[1])
      .filter((n): n is string => n !== undefined)
      .map(Number);
    const parts = await Promise.all(numbers.map((n) => this.readPart(dir, n)));
    return parts.filter((p): p is StoredPart => p !== null);
  }

  private async readPart(dir: string, partNumber: number): Promise<StoredPart | null> {
    try {
      return JSON.parse(await readFile(join(dir, `part-${partNumber}.json`), 'utf8')) as StoredPart;
    } catch {
      return null;
    }
  }

  private uploadDir(uploadId: string): string {
    return join(this.dir, uploadId);
  }
}
