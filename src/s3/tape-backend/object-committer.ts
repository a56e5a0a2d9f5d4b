import { Injectable } from '@nestjs/common';
import { pipeline, Readable } from 'node:stream';
import { isPackable } from '../../versions/pack-writer';
import { S3EtagTap } from '../body/s3-etag';
import { checkWriteCondition, S3WriteCondition } from '../handlers/write-conditions';
import { ObjectMetadata } from '../object-metadata';
import { S3BackendInsufficientCapacityError, S3Bucket, S3WriteResult } from '../s3-backend';
import { s3EtagOf } from './object-records';
import { ObjectSpool } from './object-spool';
import type { SpooledObject } from './spooled-object';
import { SpoolLedger } from './spool-ledger';
import { TapeBucket, TapeDirectory } from './tape-directory';
import { TapeVersions } from './tape-versions';
import { VersionCommitGroups } from './version-commit-groups';
import { WrittenObject } from './object-ops';
import { VersionPublishing } from './version-publishing';

/** As long as any S3 ETag kept with an object: its metadata is sized before the body is read. */
export const PLACEHOLDER_ETAG = `${'0'.repeat(32)}-1`;

/**
 * The steps every write of an object shares (PutObject, a copy across tapes, a completed
 * multipart upload): room on the tape for what the gateway holds, the write condition, and the
 * commit itself (spool -> track store -> the tape's next version, docs/s3.md).
 */
@Injectable()
export class ObjectCommitter {
  constructor(
    private readonly tapes: TapeDirectory,
    private readonly versions: TapeVersions,
    private readonly spool: ObjectSpool,
    private readonly groups: VersionCommitGroups,
    private readonly budget: SpoolLedger,
    private readonly publishing: VersionPublishing,
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

  /** Refuses early (before a body is read); the check that counts runs in the write's group. */
  async checkCondition(tape: TapeBucket, key: string, condition: S3WriteCondition): Promise<void> {
    const version = await this.versions.current(tape.address);
    const current = await this.versions.lookup(version, key);
    checkWriteCondition(condition, current ? s3EtagOf(current) : null, key);
  }

  /**
   * Spool -> track store -> the tape's next version. Nothing reaches the store before the body
   * ended whole; the answer comes once the version holding the object is confirmed.
   */
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
    // S3 clients; the commitment stays the object's identity and the site routes' ETag.
    const etag = new S3EtagTap(partSizes);
    pipeline(body, etag.stream, () => undefined);
    const spooled = await this.spool.spool(etag.stream, declaredSize);
    try {
      // A body of undeclared length (chunked transfer) is checked for room once its size is known.
      if (declaredSize === undefined) await this.tapes.writable(bucket, spooled.size);
      // Staged for the tape (docs/uploads.md): the collector keeps the bytes until a version
      // that names them is certified and recorded under its own owner.
      await this.spool.store(spooled, {
        tape: tape.address.toBase58(),
        track: this.publishing.stagingOwner(tape.address, tape.record.latestVersion),
      });
      const written = await this.groups.submit(tape.address, {
        kind: 'put',
        file: {
          name: key,
          commitment: spooled.commitment,
          size: spooled.size,
          contentType,
          layout: spooled.manifestBytes
            ? { kind: 'stream', manifestBytes: spooled.manifestBytes.length }
            : { kind: 'blob' },
        },
        bytes: packableBytes(spooled),
        metadata: { ...metadata(), etag: etag.etag() },
        condition,
      });
      return writeResult(written!);
    } finally {
      await this.spool.discard(spooled);
    }
  }
}

/** A small body received into memory: its bytes go into the version's pack as they are. */
function packableBytes(spooled: SpooledObject): Buffer | undefined {
  const [only] = spooled.segments;
  if (spooled.segments.length !== 1 || spooled.manifestBytes !== undefined) return undefined;
  return only.bytes !== undefined && isPackable(only.size) ? only.bytes : undefined;
}

/** A write's answer: its S3 ETag, the time its version keeps, its checksum. */
export function writeResult(written: WrittenObject): S3WriteResult {
  const kept = written.metadata;
  return {
    etag: kept.etag ?? written.commitment.toString('hex'),
    lastModified: new Date((kept.modified ?? 0) * 1000),
    ...(kept.checksum ? { checksum: kept.checksum } : {}),
  };
}
