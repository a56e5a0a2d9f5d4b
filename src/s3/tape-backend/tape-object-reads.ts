import { Injectable } from '@nestjs/common';
import { Readable } from 'node:stream';
import { currentVersion } from '../../chain/tape-history';
import { parseAddress } from '../../chain/tape-label';
import { ObjectReader } from '../../tracks/object-reader';
import { VersionEntry } from '../../versions/version-entry';
import {
  S3BackendInvalidRangeError,
  S3BackendNoSuchKeyError,
  S3Bucket,
  S3ByteRange,
  S3ObjectHead,
  S3ObjectInfo,
  S3ObjectStream,
} from '../s3-backend';
import { toObjectHead, toObjectInfo, trackRefOf } from './object-records';
import { TapeDirectory } from './tape-directory';
import { CurrentVersion, TapeVersions } from './tape-versions';

/**
 * The read side of S3 over tapes: buckets by label, objects from the tape's current version
 * (its pointer read fresh, its nodes verified and cached by commitment), bytes through the
 * verifying object reader.
 */
@Injectable()
export class TapeObjectReads {
  constructor(
    private readonly tapes: TapeDirectory,
    private readonly versions: TapeVersions,
    private readonly reader: ObjectReader,
  ) {}

  async findBucket(name: string): Promise<S3Bucket | null> {
    return (await this.tapes.findByLabel(name))?.bucket ?? null;
  }

  async findBucketOfTape(tapeAddress: string): Promise<S3Bucket | null> {
    const address = parseAddress(tapeAddress);
    return address ? ((await this.tapes.find(address))?.bucket ?? null) : null;
  }

  async listObjects(bucket: S3Bucket, prefix: string): Promise<S3ObjectInfo[]> {
    const version = await this.current(bucket);
    const entries = await this.versions.list(version, prefix);
    return entries.map((e) => toObjectInfo(e, publishedAt(version)));
  }

  async headObject(bucket: S3Bucket, key: string): Promise<S3ObjectHead> {
    const version = await this.current(bucket);
    return toObjectHead(await this.entry(version, key), publishedAt(version));
  }

  async getObject(bucket: S3Bucket, key: string, range?: S3ByteRange): Promise<S3ObjectStream> {
    const version = await this.current(bucket);
    const entry = await this.entry(version, key);
    const opened = await this.reader.open(trackRefOf(entry));
    const head = toObjectHead(entry, publishedAt(version));
    if (range && (range.start > range.end || range.end >= opened.size)) {
      throw new S3BackendInvalidRangeError('the object changed since its size was read');
    }
    if (opened.size === 0) return { head, body: Readable.from([]) };
    const body = range ? opened.read(range.start, range.end) : opened.read(0, opened.size - 1);
    return { head, body };
  }

  /** The tape's current version; an expired tape is refused (reads follow its site). */
  private async current(bucket: S3Bucket): Promise<CurrentVersion> {
    const tape = await this.tapes.readable(bucket);
    return this.versions.current(tape.address);
  }

  private async entry(version: CurrentVersion, key: string): Promise<VersionEntry> {
    const entry = await this.versions.lookup(version, key);
    if (!entry) throw new S3BackendNoSuchKeyError(key);
    return entry;
  }
}

/** When the version read was published (0 before the first). */
function publishedAt(version: CurrentVersion): number {
  return currentVersion(version.record)?.publishedAt ?? 0;
}
