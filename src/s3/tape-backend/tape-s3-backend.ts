import { Injectable } from '@nestjs/common';
import { PublicKey } from '@solana/web3.js';
import { pipeline, Readable } from 'node:stream';
import { NameRecord, TrackKind } from '../../chain/account-layouts';
import { ChainReader } from '../../chain/chain-reader';
import { parseAddress } from '../../chain/tape-label';
import { S3Config } from '../../config/s3.config';
import { ObjectReader } from '../../tracks/object-reader';
import {
  BodyChecksum,
  ExpectedChecksum,
  S3Backend,
  S3BackendAccessDeniedError,
  S3BackendInsufficientCapacityError,
  S3BackendInvalidRangeError,
  S3BackendNoSuchKeyError,
  S3Bucket,
  S3ByteRange,
  S3CompletedPart,
  S3CopyObjectInput,
  S3CreateMultipartInput,
  S3DeleteOutcome,
  S3MultipartUploadInfo,
  S3ObjectHead,
  S3ObjectInfo,
  S3ObjectStream,
  S3PartInfo,
  S3PutObjectInput,
  S3UploadPartInput,
  S3WriteResult,
} from '../s3-backend';
import { S3Error } from '../s3-error';
import { ChecksumAlgorithm } from '../body/checksums';
import { ChecksumType, ObjectChecksum, ObjectMetadata, ObjectParts } from '../object-metadata';
import { S3EtagTap } from '../body/s3-etag';
import { assertChecksumMatches, multipartChecksum } from './multipart-object-checksum';
import {
  decodeObjectMetadata,
  encodeObjectMetadata,
  placeholderChecksum,
} from './object-metadata-codec';
import { MultipartStore, toUploadInfo } from './multipart-store';
import { checkWriteCondition, S3WriteCondition } from '../handlers/write-conditions';
import { NamePrecondition, ObjectPublisher } from './object-publisher';
import { ObjectSpool } from './object-spool';
import { assertPublishableName, contentTypeForCopy, contentTypeForName } from './object-names';
import { SpoolLedger } from './spool-ledger';
import { TapeBucket, TapeDirectory } from './tape-directory';

/**
 * S3 over tapes: a bucket is a tape (by label), a key is an object name, an ETag is the track
 * commitment. Reads come from the chain's name records and the verified track store; writes are
 * received into the spool, stored as tracks, then published on chain by the gateway as the
 * tape's delegate (docs/s3.md, "Tapes behind the endpoint").
 */
@Injectable()
export class TapeS3Backend extends S3Backend {
  constructor(
    private readonly chain: ChainReader,
    private readonly tapes: TapeDirectory,
    private readonly reader: ObjectReader,
    private readonly spool: ObjectSpool,
    private readonly multipart: MultipartStore,
    private readonly publisher: ObjectPublisher,
    private readonly budget: SpoolLedger,
    private readonly config: S3Config,
  ) {
    super();
  }

  async findBucket(name: string): Promise<S3Bucket | null> {
    return (await this.tapes.findByLabel(name))?.bucket ?? null;
  }

  async findBucketOfTape(tapeAddress: string): Promise<S3Bucket | null> {
    const address = parseAddress(tapeAddress);
    return address ? ((await this.tapes.find(address))?.bucket ?? null) : null;
  }

  async listObjects(bucket: S3Bucket, prefix: string): Promise<S3ObjectInfo[]> {
    const tape = await this.tapes.readable(bucket);
    const names = await this.chain.listNames(tape.address);
    return names.filter((n) => n.name.startsWith(prefix)).map((n) => toInfo(n));
  }

  async headObject(bucket: S3Bucket, key: string): Promise<S3ObjectHead> {
    return toHead(await this.record(await this.tapes.readable(bucket), key));
  }

  async getObject(bucket: S3Bucket, key: string, range?: S3ByteRange): Promise<S3ObjectStream> {
    const record = await this.record(await this.tapes.readable(bucket), key);
    const opened = await this.reader.open({
      kind: record.kind === TrackKind.Manifest ? 'manifest' : 'blob',
      commitment: record.commitment,
      size: record.size,
    });
    const head = toHead(record);
    if (range && (range.start > range.end || range.end >= opened.size)) {
      throw new S3BackendInvalidRangeError('the object changed since its size was read');
    }
    if (opened.size === 0) return { head, body: Readable.from([]) };
    const body = range ? opened.read(range.start, range.end) : opened.read(0, opened.size - 1);
    return { head, body };
  }

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
      const tape = await this.writableWithSpool(bucket);
      const kept: ObjectMetadata = { headers: input.headers ?? {}, user: input.metadata };
      const algorithm = input.checksum?.algorithm;
      this.publisher.assertNameFits(
        tape.address,
        input.key,
        contentType,
        encodeObjectMetadata({
          ...kept,
          checksum: algorithm && placeholderChecksum(algorithm),
          etag: PLACEHOLDER_ETAG,
        }),
      );
      // Refused before the body is read too (the check that counts runs again under the lock).
      if (input.condition) await this.checkCondition(tape, input.key, input.condition);
      return await this.commit(
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
    const [source] = await this.chain.getNames(tape.address, [input.sourceKey]);
    if (!source) throw new S3BackendNoSuchKeyError(input.sourceKey);
    // COPY keeps the source's metadata as it is; REPLACE takes the request's headers and
    // x-amz-meta-*, and keeps the checksum (it belongs to the bytes, which do not change).
    const replace = input.replace;
    const metadataOf = (from: NameRecord): Buffer | undefined =>
      replace
        ? encodeObjectMetadata({
            ...decodeObjectMetadata(from.metadata),
            headers: replace.headers ?? {},
            user: replace.metadata,
          })
        : from.metadata;
    this.publisher.assertNameFits(
      tape.address,
      input.destinationKey,
      contentType ?? source.contentType,
      metadataOf(source),
    );
    const done = await this.publisher.copy(
      tape.address,
      input.sourceKey,
      input.destinationKey,
      contentType,
      preconditionOf(input.condition, input.destinationKey),
      metadataOf,
    );
    return {
      etag: decodeObjectMetadata(source.metadata).etag ?? done.commitment.toString('hex'),
      lastModified: done.lastModified,
      checksum: decodeObjectMetadata(source.metadata).checksum,
    };
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
    const { head, body } = await this.getObject(from, input.sourceKey);
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

  async deleteObjects(bucket: S3Bucket, keys: string[]): Promise<S3DeleteOutcome[]> {
    const tape = await this.tapes.writable(bucket);
    return this.publisher.remove(tape.address, keys);
  }

  async createMultipartUpload(
    bucket: S3Bucket,
    input: S3CreateMultipartInput,
  ): Promise<{ uploadId: string }> {
    assertPublishableName(input.key);
    const tape = await this.tapes.writable(bucket);
    const contentType = contentTypeForName(input.key, input.contentType);
    const algorithm = input.checksum?.algorithm;
    this.publisher.assertNameFits(
      tape.address,
      input.key,
      contentType,
      encodeObjectMetadata({
        headers: input.headers ?? {},
        user: input.metadata,
        checksum: algorithm && placeholderChecksum(algorithm, input.checksum?.type),
      }),
    );
    const limit = this.config.max_uploads_per_tape;
    if ((await this.multipart.openUploads(bucket.tapeAddress)) >= limit) {
      throw new S3BackendAccessDeniedError(
        `${limit} multipart uploads are in progress on this tape: complete or abort some first`,
      );
    }
    const upload = await this.multipart.create({
      tapeAddress: bucket.tapeAddress,
      key: input.key,
      contentType: input.contentType,
      metadata: input.metadata,
      ...(input.headers ? { headers: input.headers } : {}),
      ...(input.checksum ? { checksum: input.checksum } : {}),
    });
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
      await this.writableWithSpool(bucket);
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

  async completeMultipartUpload(
    bucket: S3Bucket,
    key: string,
    uploadId: string,
    parts: S3CompletedPart[],
    condition?: S3WriteCondition,
    expected?: ExpectedChecksum,
  ): Promise<S3WriteResult> {
    // One completion of an upload at a time (over all replicas when they share uploads): a retry
    // sent while the first is still committing waits for it, then answers its result.
    return this.multipart.completing(uploadId, async () => {
      const done = await this.completedMultipartUpload(bucket, key, uploadId);
      if (done) return done;
      const upload = await this.multipart.get(bucket.tapeAddress, key, uploadId);
      const sizes = await this.multipart.partSizes(upload);
      const size = sum(parts.map((p) => sizes.get(p.partNumber) ?? 0));
      const contentType = contentTypeForName(key, upload.contentType);
      const tape = await this.tapes.writable(bucket, size);
      if (condition) await this.checkCondition(tape, key, condition);
      const concatenated = await this.multipart.concatenate(upload, parts);
      const stored = await this.multipart.parts(upload);
      const objectChecksum = multipartChecksum(upload.checksum, parts, stored, concatenated);
      const kept: ObjectMetadata = { headers: upload.headers ?? {}, user: upload.metadata };
      const partSizes = parts.map((p) => sizes.get(p.partNumber) ?? 0);
      const layout = this.partLayout(tape, key, contentType, kept, upload.checksum, partSizes, {
        listed: parts,
        stored,
      });
      const result = await this.commit(
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
        partSizes,
      );
      await this.multipart.markCompleted(upload, result);
      return result;
    });
  }

  override async completedMultipartUpload(
    bucket: S3Bucket,
    key: string,
    uploadId: string,
  ): Promise<S3WriteResult | null> {
    const done = await this.multipart.completed(bucket.tapeAddress, key, uploadId);
    if (!done) return null;
    const result: S3WriteResult = { etag: done.etag, lastModified: new Date(done.lastModified) };
    // The checksum is the object's, kept with its name: answered while the key still holds it.
    const [current] = await this.chain.getNames(new PublicKey(bucket.tapeAddress), [key]);
    const kept = current && decodeObjectMetadata(current.metadata);
    if (current && kept && s3EtagOf(current, kept) === done.etag && kept.checksum) {
      result.checksum = kept.checksum;
    }
    return result;
  }

  async abortMultipartUpload(bucket: S3Bucket, key: string, uploadId: string): Promise<void> {
    // No tape checks: aborting only gives back the gateway's disk.
    await this.multipart.remove(await this.multipart.get(bucket.tapeAddress, key, uploadId));
  }

  async listMultipartUploads(bucket: S3Bucket): Promise<S3MultipartUploadInfo[]> {
    return (await this.multipart.list(bucket.tapeAddress)).map(toUploadInfo);
  }

  /**
   * What a body of undeclared length (chunked) holds while it arrives: the most it may be
   * (`max_unsized_body_bytes`), or the tape's free room if less (so it does not refuse a small
   * tape outright). Its real size is checked against the tape once it is known.
   */
  private async unsizedReservation(bucket: S3Bucket): Promise<number> {
    const { record } = await this.tapes.writable(bucket);
    const free = record.capacity - record.used - (await this.budget.tapeBytes(bucket.tapeAddress));
    return Math.max(0, Math.min(this.config.max_unsized_body_bytes, free));
  }

  /**
   * The tape, checked for room for everything the gateway holds for it: the parts of all its
   * open multipart uploads and every body being received (this one included, reserved by the
   * caller). Otherwise 1,000 uploads, or many parts at once, could each spool up to the free
   * space, and none could ever be published.
   */
  private async writableWithSpool(bucket: S3Bucket): Promise<TapeBucket> {
    const held = await this.budget.tapeBytes(bucket.tapeAddress);
    try {
      return await this.tapes.writable(bucket, held);
    } catch (error) {
      if (!(error instanceof S3BackendInsufficientCapacityError)) throw error;
      throw new S3BackendInsufficientCapacityError(
        `${error.message}; this counts the parts of every multipart upload in progress on the tape ` +
          'and the bodies being received (abort unused uploads to free room)',
      );
    }
  }

  private async checkCondition(
    tape: TapeBucket,
    key: string,
    condition: S3WriteCondition,
  ): Promise<void> {
    const [current] = await this.chain.getNames(tape.address, [key]);
    checkWriteCondition(condition, current ? s3EtagOf(current) : null, key);
  }

  /**
   * The part boundaries (and the parts' checksums) kept with a completed multipart object, as
   * much of them as its name can hold: the tail is bounded by the program (1,024 bytes) and the
   * SetName transaction. Without the checksums when they do not fit, without the layout when it
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
        this.publisher.assertNameFits(
          tape.address,
          key,
          contentType,
          encodeObjectMetadata({ ...kept, checksum, etag: PLACEHOLDER_ETAG, parts: layout }),
        );
        return true;
      } catch {
        return false;
      }
    });
  }

  /** Spool -> track store -> chain. Nothing reaches the store before the body ended whole. */
  private async commit(
    bucket: S3Bucket,
    tape: TapeBucket,
    key: string,
    body: Readable,
    contentType: string,
    declaredSize: number | undefined,
    condition: S3WriteCondition | undefined,
    metadata: () => ObjectMetadata,
    partSizes?: number[],
  ): Promise<S3WriteResult> {
    // S3's ETag (an MD5, the multipart form for a completed upload) is kept with the object for
    // S3 clients; the commitment stays the track's identity and the site routes' ETag.
    const etag = new S3EtagTap(partSizes);
    pipeline(body, etag.stream, () => undefined);
    const spooled = await this.spool.spool(etag.stream, declaredSize);
    try {
      // A body of undeclared length (chunked transfer) is checked for room once its size is known.
      if (declaredSize === undefined) await this.tapes.writable(bucket, spooled.size);
      // The references let the track store's collector keep these bytes while the track lives.
      await this.spool.store(spooled, {
        tape: tape.address.toBase58(),
        track: this.publisher.trackAddress(tape.address, spooled.commitment).toBase58(),
      });
      const kept: ObjectMetadata = { ...metadata(), etag: etag.etag() };
      const done = await this.publisher.publish(
        tape.address,
        key,
        spooled,
        contentType,
        preconditionOf(condition, key),
        encodeObjectMetadata(kept),
      );
      return {
        etag: kept.etag ?? done.commitment.toString('hex'),
        lastModified: done.lastModified,
        ...(kept.checksum ? { checksum: kept.checksum } : {}),
      };
    } finally {
      await this.spool.discard(spooled);
    }
  }

  private async record(tape: TapeBucket, key: string): Promise<NameRecord> {
    const [record] = await this.chain.getNames(tape.address, [key]);
    if (!record) throw new S3BackendNoSuchKeyError(key);
    return record;
  }
}

function preconditionOf(
  condition: S3WriteCondition | undefined,
  key: string,
): NamePrecondition | undefined {
  if (!condition) return undefined;
  return (current) => checkWriteCondition(condition, current ? s3EtagOf(current) : null, key);
}

/** As long as any S3 ETag kept in a tail: the name is sized before the body is read. */
const PLACEHOLDER_ETAG = `${'0'.repeat(32)}-1`;

/** The object's S3 ETag: the one kept in its tail, else (names `tape deploy` wrote) the commitment. */
export function s3EtagOf(record: NameRecord, kept = decodeObjectMetadata(record.metadata)): string {
  return kept.etag ?? record.commitment.toString('hex');
}

function toInfo(record: NameRecord, kept = decodeObjectMetadata(record.metadata)): S3ObjectInfo {
  return {
    key: record.name,
    size: record.size,
    etag: s3EtagOf(record, kept),
    lastModified: new Date(record.updatedAt * 1000),
  };
}

/** The object's kept headers, x-amz-meta-*, checksum and parts come from its name's tail. */
function toHead(record: NameRecord): S3ObjectHead {
  const kept = decodeObjectMetadata(record.metadata);
  return {
    ...toInfo(record, kept),
    contentType: record.contentType,
    metadata: kept.user,
    headers: kept.headers,
    ...(kept.checksum ? { checksum: kept.checksum } : {}),
    ...(kept.parts ? { parts: kept.parts } : {}),
  };
}

/** A checksum already known (a copied object's), as a body checksum the write keeps. */
function fixedChecksum(checksum: ObjectChecksum): BodyChecksum {
  return { algorithm: checksum.algorithm, value: () => checksum.value };
}

function sum(values: Iterable<number>): number {
  let total = 0;
  for (const v of values) total += v;
  return total;
}
