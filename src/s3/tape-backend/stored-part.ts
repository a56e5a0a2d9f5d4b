import { createHash } from 'node:crypto';
import { Transform, TransformCallback } from 'node:stream';
import { ChecksumAlgorithm, newChecksum } from '../body/checksums';
import { S3BackendEntityTooLargeError, S3PartInfo } from '../s3-backend';

/** What every multipart store keeps of a part, wherever its bytes are. */
export interface StoredPartRecord {
  partNumber: number;
  etag: string;
  size: number;
  lastModified: string;
  /** Base64, in the upload's checksum algorithm (when it has one). */
  checksum?: string;
}

export function toPartInfo(part: StoredPartRecord): S3PartInfo {
  return {
    partNumber: part.partNumber,
    etag: part.etag,
    size: part.size,
    lastModified: new Date(part.lastModified),
    ...(part.checksum !== undefined ? { checksum: part.checksum } : {}),
  };
}

/**
 * A part's bytes on their way to a store: counted against the bytes held for them (a longer body
 * fails with EntityTooLarge before the extra byte is passed on), hashed for the part's ETag and,
 * when the upload has a checksum algorithm, summed in it.
 */
export class PartDigester extends Transform {
  private readonly hash = createHash('sha256');
  private readonly sum;
  private size = 0;

  constructor(
    private readonly limit: number,
    algorithm: ChecksumAlgorithm | undefined,
  ) {
    super();
    this.sum = algorithm ? newChecksum(algorithm) : undefined;
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, done: TransformCallback): void {
    this.size += chunk.length;
    if (this.size > this.limit) {
      done(new S3BackendEntityTooLargeError(`the part is longer than its ${this.limit} bytes`));
      return;
    }
    this.hash.update(chunk);
    this.sum?.update(chunk);
    done(null, chunk);
  }

  /** The record of the part received, once the body has ended. */
  record(partNumber: number): StoredPartRecord {
    return {
      partNumber,
      etag: this.hash.digest('hex'),
      size: this.size,
      lastModified: new Date().toISOString(),
      ...(this.sum ? { checksum: this.sum.digestBase64() } : {}),
    };
  }
}
