import type { Readable } from 'node:stream';
import type { ChecksumAlgorithm } from '../body/checksums';
import type { ChecksumType, StoredHeaders } from '../object-metadata';
import type { S3CompletedPart, S3MultipartUploadInfo, S3PartInfo } from '../s3-backend';
import type { SpoolHold } from './spool-budget';

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

/** The answer a retried CompleteMultipartUpload gets again. */
export interface CompletedUpload {
  etag: string;
  lastModified: string;
  completedAt: string;
}

/**
 * Port: multipart uploads in progress and recently completed. On the gateway's disk
 * (MultipartSpool, one gateway) or in the shared Redis with parts in the track bucket
 * (SharedMultipartStore: any replica takes any part and completes the upload).
 */
export abstract class MultipartStore {
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
  abstract removeTapeUploads(tapeAddress: string): Promise<number>;
  /**
   * Begins an upload unless its tape already has `maxOpenPerTape` in progress (null then): the
   * count and the insert are one step, so uploads created at once (on any replica) never pass
   * the limit together.
   */
  abstract create(
    upload: Omit<MultipartUpload, 'uploadId' | 'initiated'>,
    maxOpenPerTape: number,
  ): Promise<MultipartUpload | null>;
  /** The upload of this tape and key, or NoSuchUpload (unknown, another tape's, another key). */
  abstract get(tapeAddress: string, key: string, uploadId: string): Promise<MultipartUpload>;
  /** The result of an upload of this tape and key that was completed, or null. */
  abstract completed(
    tapeAddress: string,
    key: string,
    uploadId: string,
  ): Promise<CompletedUpload | null>;
  abstract markCompleted(
    upload: MultipartUpload,
    result: { etag: string; lastModified: Date },
  ): Promise<void>;
  abstract list(tapeAddress: string): Promise<MultipartUpload[]>;
  /** Receives one part; the part keeps `hold` while stored (released when it fails). */
  abstract writePart(
    upload: MultipartUpload,
    partNumber: number,
    body: Readable,
    hold: SpoolHold,
  ): Promise<S3PartInfo>;
  abstract parts(upload: MultipartUpload): Promise<S3PartInfo[]>;
  abstract partSizes(upload: MultipartUpload): Promise<Map<number, number>>;
  /** The listed parts' bytes one after another. */
  abstract concatenate(upload: MultipartUpload, parts: S3CompletedPart[]): Promise<Readable>;
  abstract remove(upload: MultipartUpload): Promise<void>;
  /**
   * Runs one completion of this upload at a time (over all replicas when shared): a retry sent
   * while the first is still committing waits for it, then answers its result.
   */
  abstract completing<T>(uploadId: string, work: () => Promise<T>): Promise<T>;
}

export function toUploadInfo(upload: MultipartUpload): S3MultipartUploadInfo {
  return { key: upload.key, uploadId: upload.uploadId, initiated: new Date(upload.initiated) };
}
