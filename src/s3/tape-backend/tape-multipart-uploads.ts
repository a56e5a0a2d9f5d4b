import { Injectable } from '@nestjs/common';
import { PublicKey } from '@solana/web3.js';
import { S3Config } from '../../config/s3.config';
import { ChecksumAlgorithm } from '../body/checksums';
import { ChecksumType, ObjectMetadata, ObjectParts } from '../object-metadata';
import {
  S3Backend,
  S3BackendAccessDeniedError,
  S3Bucket,
  S3CompletedPart,
  S3CreateMultipartInput,
  S3MultipartUploadInfo,
  S3PartInfo,
  S3UploadPartInput,
  S3WriteResult,
} from '../s3-backend';
import { S3Error } from '../s3-error';
import { assertChecksumMatches, multipartChecksum } from './multipart-object-checksum';
import { CompletedUpload, MultipartStore, toUploadInfo } from './multipart-store';
import { ObjectCommitter, PLACEHOLDER_ETAG } from './object-committer';
import {
  decodeObjectMetadata,
  encodeObjectMetadata,
  placeholderChecksum,
} from './object-metadata-codec';
import { assertPublishableName, contentTypeForName } from './object-names';
import { assertEntryFits, s3EtagOf } from './object-records';
import { SpoolLedger } from './spool-ledger';
import { TapeBucket, TapeDirectory } from './tape-directory';
import { TapeVersions } from './tape-versions';

/**
 * Multipart uploads on tapes: parts are held by the multipart store (counted in the tape's spool
 * budget) until the completion commits their concatenation as one object.
 */
@Injectable()
export class TapeMultipartUploads {
  constructor(
    private readonly tapes: TapeDirectory,
    private readonly versions: TapeVersions,
    private readonly multipart: MultipartStore,
    private readonly committer: ObjectCommitter,
    private readonly budget: SpoolLedger,
    private readonly config: S3Config,
  ) {}

  async create(bucket: S3Bucket, input: S3CreateMultipartInput): Promise<{ uploadId: string }> {
    assertPublishableName(input.key);
    await this.tapes.writable(bucket);
    const contentType = contentTypeForName(input.key, input.contentType);
    const algorithm = input.checksum?.algorithm;
    assertEntryFits(
      input.key,
      contentType,
      encodeObjectMetadata({
        headers: input.headers ?? {},
        user: input.metadata,
        checksum: algorithm && placeholderChecksum(algorithm, input.checksum?.type),
      }),
    );
    const limit = this.config.max_uploads_per_tape;
    const upload = await this.multipart.create(
      {
        tapeAddress: bucket.tapeAddress,
        key: input.key,
        contentType: input.contentType,
        metadata: input.metadata,
        ...(input.headers ? { headers: input.headers } : {}),
        ...(input.checksum ? { checksum: input.checksum } : {}),
      },
      limit,
    );
    if (upload === null) {
      throw new S3BackendAccessDeniedError(
        `${limit} multipart uploads are in progress on this tape: complete or abort some first`,
      );
    }
    return { uploadId: upload.uploadId };
  }

  async uploadPart(
    bucket: S3Bucket,
    input: S3UploadPartInput,
  ): Promise<{ etag: string; checksum?: { algorithm: ChecksumAlgorithm; value: string } }> {
    if (input.size === undefined) {
      throw new S3Error('MissingContentLength', 'you must provide the Content-Length HTTP header');
    }
    const upload = await this.multipart.get(bucket.tapeAddress, input.key, input.uploadId);
    // Reserved before the check, so parts arriving together each count the others.
    const hold = await this.budget.reserve(bucket.tapeAddress, input.size);
    try {
      await this.committer.writableWithSpool(bucket);
    } catch (error) {
      hold.release();
      throw error;
    }
    // The part keeps the hold while stored (released if it fails).
    const part = await this.multipart.writePart(upload, input.partNumber, input.body, hold);
    const algorithm = upload.checksum?.algorithm;
    return algorithm && part.checksum
      ? { etag: part.etag, checksum: { algorithm, value: part.checksum } }
      : { etag: part.etag };
  }

  async listParts(bucket: S3Bucket, key: string, uploadId: string): Promise<S3PartInfo[]> {
    const upload = await this.multipart.get(bucket.tapeAddress, key, uploadId);
    const algorithm = upload.checksum?.algorithm;
    const parts = await this.multipart.parts(upload);
    return algorithm ? parts.map((p) => ({ ...p, checksumAlgorithm: algorithm })) : parts;
  }

  /** S3Backend.completeMultipartUpload, with the same arguments. */
  async complete(
    ...[bucket, key, uploadId, checkParts, condition, expected]: Parameters<
      S3Backend['completeMultipartUpload']
    >
  ): Promise<S3WriteResult> {
    // One completion of an upload at a time (over all replicas when they share uploads): a retry
    // sent while the first is still committing waits for it, then answers its result. The part
    // list is checked on the read the parts are joined from, inside the lock, and it holds still
    // until the lock is let go: a part sent again meanwhile is recorded only then (the stores
    // record a part only while no completion holds this lock), an abort and the sweeper wait for
    // it too, so the join streams exactly the parts it checked.
    return this.multipart.completing(uploadId, async () => {
      // One read of the upload's record, one of its part list: what follows works from those.
      const found = await this.multipart.find(bucket.tapeAddress, key, uploadId);
      if (found.done) return this.answerOf(bucket, key, found.done);
      const { upload } = found;
      const read = await this.multipart.completionParts(upload, checkParts);
      const size = sum(read.sizes);
      const contentType = contentTypeForName(key, upload.contentType);
      const tape = await this.tapes.writable(bucket, size);
      if (condition) await this.committer.checkCondition(tape, key, condition);
      const concatenated = await read.concatenate();
      const objectChecksum = multipartChecksum(
        upload.checksum,
        read.listed,
        read.stored,
        concatenated,
      );
      const kept: ObjectMetadata = { headers: upload.headers ?? {}, user: upload.metadata };
      const layout = this.partLayout(tape, key, contentType, kept, upload.checksum, read.sizes, {
        listed: read.listed,
        stored: read.stored,
      });
      const result = await this.committer.commit(
        bucket,
        tape,
        key,
        objectChecksum.body,
        contentType,
        size,
        condition,
        () => {
          // Known now for either type (FULL_OBJECT over the bytes just spooled): checked before
          // anything is published.
          const checksum = objectChecksum.value();
          if (expected) assertChecksumMatches(expected, checksum);
          return { ...kept, checksum, ...(layout ? { parts: layout } : {}) };
        },
        read.sizes,
      );
      await this.multipart.markCompleted(upload, result);
      return result;
    });
  }

  /** What a completed upload answers again (a retry), with the object's checksum if it has one. */
  private async answerOf(
    bucket: S3Bucket,
    key: string,
    done: CompletedUpload,
  ): Promise<S3WriteResult> {
    const result: S3WriteResult = { etag: done.etag, lastModified: new Date(done.lastModified) };
    // The checksum is the object's, kept with its name: answered while the key still holds it.
    const current = await this.versions.lookup(
      await this.versions.current(new PublicKey(bucket.tapeAddress)),
      key,
    );
    const kept = current && decodeObjectMetadata(current.metadata);
    if (current && kept && s3EtagOf(current, kept) === done.etag && kept.checksum) {
      result.checksum = kept.checksum;
    }
    return result;
  }

  async abort(bucket: S3Bucket, key: string, uploadId: string): Promise<void> {
    // No tape checks: aborting only gives back the gateway's disk. Under the completion lock: an
    // abort sent while the upload completes never deletes the parts being joined; it waits, and
    // then finds the upload completed (NoSuchUpload, as S3 answers) or still open.
    await this.multipart.completing(uploadId, async () =>
      this.multipart.remove(await this.multipart.get(bucket.tapeAddress, key, uploadId)),
    );
  }

  async list(bucket: S3Bucket): Promise<S3MultipartUploadInfo[]> {
    return (await this.multipart.list(bucket.tapeAddress)).map(toUploadInfo);
  }

  /**
   * The part boundaries (and the parts' checksums) kept with a completed multipart object, as
   * much of them as its name can hold: the entry's metadata is at most 1,024 bytes
   * (docs/versions.md, "Entries"). Without the checksums when they do not fit, without the layout when it
   * does not either (GetObjectAttributes and `partNumber` then see one part).
   */
  private partLayout(
    tape: TapeBucket,
    key: string,
    contentType: string,
    kept: ObjectMetadata,
    want: { algorithm: ChecksumAlgorithm; type: ChecksumType } | undefined,
    sizes: number[],
    parts: { listed: S3CompletedPart[]; stored: S3PartInfo[] },
  ): ObjectParts | undefined {
    const byNumber = new Map(parts.stored.map((p) => [p.partNumber, p.checksum]));
    const checksums = parts.listed.flatMap((p) => byNumber.get(p.partNumber) ?? []);
    const complete = want !== undefined && checksums.length === parts.listed.length;
    const candidates: ObjectParts[] = complete ? [{ sizes, checksums }, { sizes }] : [{ sizes }];
    const checksum = want && placeholderChecksum(want.algorithm, want.type);
    return candidates.find((layout) => {
      try {
        assertEntryFits(
          key,
          contentType,
          encodeObjectMetadata({
            ...kept,
            checksum,
            etag: PLACEHOLDER_ETAG,
            parts: layout,
            modified: 0,
          }),
        );
        return true;
      } catch {
        return false;
      }
    });
  }
}

function sum(values: Iterable<number>): number {
  let total = 0;
  for (const v of values) total += v;
  return total;
}
