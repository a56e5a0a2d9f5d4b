import { Injectable } from '@nestjs/common';
import { pipeline, Readable } from 'node:stream';
import { ChainReader } from '../../chain/chain-reader';
import { S3EtagTap } from '../body/s3-etag';
import { checkWriteCondition, S3WriteCondition } from '../handlers/write-conditions';
import { ObjectMetadata } from '../object-metadata';
import { S3BackendInsufficientCapacityError, S3Bucket, S3WriteResult } from '../s3-backend';
import { encodeObjectMetadata } from './object-metadata-codec';
import { NamePrecondition, ObjectPublisher } from './object-publisher';
import { s3EtagOf } from './object-records';
import { ObjectSpool } from './object-spool';
import { SpoolLedger } from './spool-ledger';
import { TapeBucket, TapeDirectory } from './tape-directory';

/** As long as any S3 ETag kept in a tail: the name is sized before the body is read. */
export const PLACEHOLDER_ETAG = `${'0'.repeat(32)}-1`;

/**
 * The steps every write of an object shares (PutObject, a copy across tapes, a completed
 * multipart upload): room on the tape for what the gateway holds, the write condition, and the
 * commit itself (spool -> track store -> chain).
 */
@Injectable()
export class ObjectCommitter {
  constructor(
    private readonly chain: ChainReader,
    private readonly tapes: TapeDirectory,
    private readonly spool: ObjectSpool,
    private readonly publisher: ObjectPublisher,
    private readonly budget: SpoolLedger,
  ) {}

  /**
   * The tape, checked for room for everything the gateway holds for it: the parts of all its
   * open multipart uploads and every body being received (this one included, reserved by the
   * caller). Otherwise 1,000 uploads, or many parts at once, could each spool up to the free
   * space, and none could ever be published.
   */
  async writableWithSpool(bucket: S3Bucket): Promise<TapeBucket> {
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

  async checkCondition(tape: TapeBucket, key: string, condition: S3WriteCondition): Promise<void> {
    const [current] = await this.chain.getNames(tape.address, [key]);
    checkWriteCondition(condition, current ? s3EtagOf(current) : null, key);
  }

  /** Spool -> track store -> chain. Nothing reaches the store before the body ended whole. */
  async commit(
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
}

/** The write condition, checked again by the publisher under the name's write lock. */
export function preconditionOf(
  condition: S3WriteCondition | undefined,
  key: string,
): NamePrecondition | undefined {
  if (!condition) return undefined;
  return (current) => checkWriteCondition(condition, current ? s3EtagOf(current) : null, key);
}
