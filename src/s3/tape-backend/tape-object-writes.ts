import { Injectable } from '@nestjs/common';
import { S3Config } from '../../config/s3.config';
import { ObjectChecksum, ObjectMetadata } from '../object-metadata';
import {
  BodyChecksum,
  S3BackendError,
  S3Bucket,
  S3CopyObjectInput,
  S3DeleteOutcome,
  S3PutObjectInput,
  S3WriteResult,
} from '../s3-backend';
import { groupFailedError } from './chain-write-errors';
import { ObjectCommitter, PLACEHOLDER_ETAG, writeResult } from './object-committer';
import { encodeObjectMetadata, placeholderChecksum } from './object-metadata-codec';
import { assertPublishableName, contentTypeForCopy, contentTypeForName } from './object-names';
import { assertEntryFits } from './object-records';
import { SpoolLedger } from './spool-ledger';
import { TapeDirectory } from './tape-directory';
import { TapeObjectReads } from './tape-object-reads';
import { VersionCommitGroups } from './version-commit-groups';

/** PutObject, CopyObject and DeleteObjects on tapes. */
@Injectable()
export class TapeObjectWrites {
  constructor(
    private readonly tapes: TapeDirectory,
    private readonly reads: TapeObjectReads,
    private readonly committer: ObjectCommitter,
    private readonly groups: VersionCommitGroups,
    private readonly budget: SpoolLedger,
    private readonly config: S3Config,
  ) {}

  async putObject(bucket: S3Bucket, input: S3PutObjectInput): Promise<S3WriteResult> {
    assertPublishableName(input.key);
    const contentType = contentTypeForName(input.key, input.contentType);
    // Everything that can refuse the write is checked before the body is read, so a refused
    // client (Expect: 100-continue) never sends it.
    const hold = await this.budget.reserve(
      bucket.tapeAddress,
      input.size ?? (await this.unsizedReservation(bucket)),
    );
    try {
      const tape = await this.committer.writableWithSpool(bucket);
      const kept: ObjectMetadata = { headers: input.headers ?? {}, user: input.metadata };
      const algorithm = input.checksum?.algorithm;
      assertEntryFits(
        input.key,
        contentType,
        encodeObjectMetadata({
          ...kept,
          checksum: algorithm && placeholderChecksum(algorithm),
          etag: PLACEHOLDER_ETAG,
          modified: 0,
        }),
      );
      // Refused before the body is read too (the check that counts runs again under the lock).
      if (input.condition) await this.committer.checkCondition(tape, input.key, input.condition);
      return await this.committer.commit(
        bucket,
        tape,
        input.key,
        input.body,
        contentType,
        input.size,
        input.condition,
        () => {
          // The body ended whole, so its verified checksum is known now.
          const value = input.checksum?.value();
          return algorithm && value
            ? { ...kept, checksum: { algorithm, type: 'FULL_OBJECT', value } }
            : kept;
        },
      );
    } finally {
      hold.release();
    }
  }

  async copyObject(bucket: S3Bucket, input: S3CopyObjectInput): Promise<S3WriteResult> {
    assertPublishableName(input.destinationKey);
    const from = input.sourceBucket;
    if (from && from.tapeAddress !== bucket.tapeAddress)
      return this.copyAcross(bucket, from, input);
    const tape = await this.tapes.writable(bucket);
    // S3 copies the source's content type unless the request replaces the metadata.
    const contentType = input.replace
      ? contentTypeForCopy(input.destinationKey, input.replace.contentType)
      : undefined;
    // COPY keeps the source's metadata as it is; REPLACE takes the request's headers and
    // x-amz-meta-*, and keeps the checksum and ETag (they belong to the bytes, which do not
    // change). No bytes move: the copy names the source's bytes where its version has them.
    const replace = input.replace;
    const written = await this.groups.submit(tape.address, {
      kind: 'copy',
      source: input.sourceKey,
      destination: input.destinationKey,
      contentType,
      metadata: (source) =>
        replace ? { ...source, headers: replace.headers ?? {}, user: replace.metadata } : source,
      condition: input.condition,
    });
    return writeResult(written!);
  }

  async deleteObjects(bucket: S3Bucket, keys: string[]): Promise<S3DeleteOutcome[]> {
    const tape = await this.tapes.writable(bucket);
    try {
      await this.groups.submit(tape.address, { kind: 'delete', names: [...new Set(keys)] });
      return keys.map((key) => ({ key }));
    } catch (error) {
      // One version removes them all or none: every key gets the group's refusal.
      const typed = error instanceof S3BackendError ? error : groupFailedError(error);
      return keys.map((key) => ({ key, error: typed }));
    }
  }

  /**
   * A copy from another tape: a track belongs to its tape, so the destination gets its own,
   * written like a PutObject of the source's verified bytes (the track store already holds them:
   * content-addressed, nothing new is stored), with the source's type and metadata (COPY) or the
   * request's (REPLACE). Its S3 ETag is the MD5 of the bytes, as S3 gives a copy.
   */
  private async copyAcross(
    bucket: S3Bucket,
    from: S3Bucket,
    input: S3CopyObjectInput,
  ): Promise<S3WriteResult> {
    const { head, body } = await this.reads.getObject(from, input.sourceKey);
    try {
      const replace = input.replace;
      return await this.putObject(bucket, {
        key: input.destinationKey,
        contentType: replace ? replace.contentType : head.contentType,
        metadata: replace ? replace.metadata : head.metadata,
        headers: replace ? (replace.headers ?? {}) : (head.headers ?? {}),
        ...(head.checksum?.type === 'FULL_OBJECT'
          ? { checksum: fixedChecksum(head.checksum) }
          : {}),
        size: head.size,
        body,
        condition: input.condition,
      });
    } finally {
      body.destroy();
    }
  }

  /**
   * What a body of undeclared length (chunked) holds while it arrives: the most it may be
   * (`max_unsized_body_bytes`), or the tape's free room if less (so it does not refuse a small
   * tape outright). Its real size is checked against the tape once it is known.
   */
  private async unsizedReservation(bucket: S3Bucket): Promise<number> {
    const { record } = await this.tapes.writable(bucket);
    const free =
      record.capacity - record.keptBytes - (await this.budget.tapeBytes(bucket.tapeAddress));
    return Math.max(0, Math.min(this.config.max_unsized_body_bytes, free));
  }
}

/** A checksum already known (a copied object's), as a body checksum the write keeps. */
function fixedChecksum(checksum: ObjectChecksum): BodyChecksum {
  return { algorithm: checksum.algorithm, value: () => checksum.value };
}
