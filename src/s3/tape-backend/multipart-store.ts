import { randomBytes } from 'node:crypto';
import type { Readable } from 'node:stream';
import type { ChecksumAlgorithm } from '../body/checksums';
import type { ChecksumType, StoredHeaders } from '../object-metadata';
import {
  S3BackendNoSuchUploadError,
  type S3CompletedPart,
  type S3MultipartUploadInfo,
  type S3PartInfo,
  type S3PartListCheck,
} from '../s3-backend';
import type { SpoolHold } from './spool-budget';
import { StoredPartRecord, toPartInfo } from './stored-part';

/** An upload's record: enough to complete it on any replica, after any restart. */
export interface MultipartUpload {
  uploadId: string;
  tapeAddress: string;
  key: string;
  contentType: string | undefined;
  metadata: Record<string, string>;
  initiated: string;
  /** Cache-Control and the other kept headers of CreateMultipartUpload. */
  headers?: StoredHeaders;
  /** The upload's checksum algorithm and type: every part's checksum is kept in it. */
  checksum?: { algorithm: ChecksumAlgorithm; type: ChecksumType };
}

/** A part on its way in: its upload, number, body and the spool budget held for it. */
export interface IncomingPart {
  upload: MultipartUpload;
  partNumber: number;
  body: Readable;
  hold: SpoolHold;
}

/** The answer a retried CompleteMultipartUpload gets again. */
export interface CompletedUpload {
  etag: string;
  lastModified: string;
  completedAt: string;
}

/** An upload as one read of its record finds it: `done` once it was completed. */
export interface FoundUpload {
  upload: MultipartUpload;
  /** The completion's answer, kept for retries. */
  done?: CompletedUpload;
}

/** A completion's parts, from one read of the upload's part list: checked, sized, joined. */
export interface CompletionParts {
  /** The parts to assemble, in order, as the part-list check chose them from `stored`. */
  listed: S3CompletedPart[];
  /** Every stored part (ETag, size, checksum) of that read. */
  stored: S3PartInfo[];
  /** The listed parts' sizes, in the completion's order (0 for a part not stored). */
  sizes: number[];
  /** The listed parts' bytes one after another; NoSuchUpload when one is not stored. */
  concatenate(): Promise<Readable>;
}

const UPLOAD_ID = /^[0-9a-f]{32}$/;

/** An upload id as `create` makes them (checked before it names a file or a key). */
export function isUploadId(uploadId: string): boolean {
  return UPLOAD_ID.test(uploadId);
}

/**
 * Port: multipart uploads in progress and recently completed. On the gateway's disk
 * (MultipartSpool, one gateway) or in the shared Redis with parts in the track bucket
 * (SharedMultipartStore: any replica takes any part and completes the upload). What does not
 * depend on where parts are kept is written once here, over `storedParts` and `removeId`.
 */
export abstract class MultipartStore<Part extends StoredPartRecord = StoredPartRecord> {
  /** Uploads in progress on a tape. */
  abstract openUploads(tapeAddress: string): number | Promise<number>;
  /** The tapes that have uploads in progress (for the sweep of ended tapes). */
  abstract openTapes(): Promise<string[]>;
  /**
   * Removes, giving back their spool, the uploads begun more than `upload_expiry_hours` ago or
   * idle (no part) for `upload_idle_hours`, and forgets completions older than the expiry.
   * Returns how many uploads in progress were removed.
   */
  abstract removeExpired(now?: number): Promise<number>;
  /** Removes every upload in progress of a tape (its tape expired or is gone). */
  async removeTapeUploads(tapeAddress: string): Promise<number> {
    let removed = 0;
    for (const id of await this.openIds(tapeAddress)) if (await this.removeOpen(id)) removed++;
    return removed;
  }
  /**
   * Begins an upload unless its tape already has `maxOpenPerTape` in progress (null then): the
   * count and the insert are one step, so uploads created at once (on any replica) never pass
   * the limit together.
   */
  async create(
    upload: Omit<MultipartUpload, 'uploadId' | 'initiated'>,
    maxOpenPerTape: number,
  ): Promise<MultipartUpload | null> {
    const record: MultipartUpload = {
      ...upload,
      uploadId: randomBytes(16).toString('hex'),
      initiated: new Date().toISOString(),
    };
    return (await this.insert(record, maxOpenPerTape)) ? record : null;
  }

  /**
   * The upload of this tape and key, in progress or completed (`done`), from one read of its
   * record; NoSuchUpload when unknown, another tape's or another key's.
   */
  async find(tapeAddress: string, key: string, uploadId: string): Promise<FoundUpload> {
    const found = await this.loadUpload(uploadId);
    if (!found || !isOf(found.upload, tapeAddress, key)) {
      throw new S3BackendNoSuchUploadError(uploadId);
    }
    return found;
  }

  /**
   * The upload of this tape and key in progress, or NoSuchUpload (unknown, another tape's,
   * another key, completed).
   */
  async get(tapeAddress: string, key: string, uploadId: string): Promise<MultipartUpload> {
    const found = await this.find(tapeAddress, key, uploadId);
    if (found.done) throw new S3BackendNoSuchUploadError(uploadId);
    return found.upload;
  }

  abstract markCompleted(
    upload: MultipartUpload,
    result: { etag: string; lastModified: Date },
  ): Promise<void>;
  abstract list(tapeAddress: string): Promise<MultipartUpload[]>;
  /**
   * Receives one part (replacing an earlier one of the same number once it is complete and no
   * completion of the upload holds it: NoSuchUpload when that completion succeeded). `hold`
   * is the budget reserved for it: the part keeps it while stored, and it is released when the
   * part fails. More bytes than the hold are never stored: the body is cut off with
   * EntityTooLarge at the first byte past it.
   */
  async writePart(
    upload: MultipartUpload,
    partNumber: number,
    body: Readable,
    hold: SpoolHold,
  ): Promise<S3PartInfo> {
    try {
      return await this.receivePart({ upload, partNumber, body, hold });
    } catch (error) {
      hold.release();
      throw error;
    }
  }

  async parts(upload: MultipartUpload): Promise<S3PartInfo[]> {
    return (await this.storedParts(upload)).map(toPartInfo);
  }

  /**
   * The upload's part list read once for completing it: `checkParts` (the request's part list
   * checked against the stored parts) chooses the parts from that read, and what the completion
   * sizes, checks the checksums of and concatenates all comes from the same read, so the bytes
   * joined are those of the ETags checked.
   */
  async completionParts(
    upload: MultipartUpload,
    checkParts: S3PartListCheck,
  ): Promise<CompletionParts> {
    const stored = await this.storedParts(upload);
    const info = stored.map(toPartInfo);
    const listed = checkParts(info);
    const byNumber = new Map(stored.map((p) => [p.partNumber, p]));
    return {
      listed,
      stored: info,
      sizes: listed.map((p) => byNumber.get(p.partNumber)?.size ?? 0),
      concatenate: async () => {
        const parts = listed.map((p) => {
          const part = byNumber.get(p.partNumber);
          if (!part) throw new S3BackendNoSuchUploadError(upload.uploadId);
          return part;
        });
        return this.concatenate(upload, parts);
      },
    };
  }

  async remove(upload: MultipartUpload): Promise<void> {
    await this.removeId(upload.uploadId);
  }
  /**
   * Runs one completion of this upload at a time (over all replicas when shared): a retry sent
   * while the first is still committing waits for it, then answers its result. While it runs the
   * upload's part list holds still: parts are recorded, and uploads aborted or swept, only once
   * it lets go.
   */
  abstract completing<T>(uploadId: string, work: () => Promise<T>): Promise<T>;

  /**
   * Removes an upload in progress for the sweeper once no completion holds it, so a completion
   * under way never loses its parts: it finishes first, and an upload it completed is left to its
   * retry memory. True when the upload was removed.
   */
  protected removeOpen(uploadId: string): Promise<boolean> {
    return this.completing(uploadId, async () => {
      if ((await this.loadUpload(uploadId))?.done) return false;
      await this.removeId(uploadId);
      return true;
    });
  }

  /**
   * Records a new upload unless its tape has `maxOpenPerTape` in progress (false then), the
   * count and the insert one step. Called at once by `create`, before anything is awaited.
   */
  protected abstract insert(record: MultipartUpload, maxOpenPerTape: number): Promise<boolean>;

  /** The ids of a tape's uploads in progress. */
  protected abstract openIds(tapeAddress: string): Promise<string[]>;

  /**
   * The upload's record and, once it was completed, the answer kept for retries, in one read;
   * null when unknown (an id `create` never makes too) or completed with no answer to give.
   */
  protected abstract loadUpload(uploadId: string): Promise<FoundUpload | null>;

  /** Stores one part's bytes and its record; `writePart` releases the hold when this fails. */
  protected abstract receivePart(part: IncomingPart): Promise<S3PartInfo>;

  /** The upload's stored parts (NoSuchUpload when the upload is gone). */
  protected abstract storedParts(upload: MultipartUpload): Promise<Part[]>;

  /** These stored parts' bytes one after another (`completionParts` picks them). */
  protected abstract concatenate(upload: MultipartUpload, parts: Part[]): Promise<Readable>;

  /** Forgets the upload, open or completed: its record, its parts, the budget they hold. */
  protected abstract removeId(uploadId: string): Promise<void>;
}

function isOf(upload: MultipartUpload, tapeAddress: string, key: string): boolean {
  return upload.tapeAddress === tapeAddress && upload.key === key;
}

export function toUploadInfo(upload: MultipartUpload): S3MultipartUploadInfo {
  return { key: upload.key, uploadId: upload.uploadId, initiated: new Date(upload.initiated) };
}
