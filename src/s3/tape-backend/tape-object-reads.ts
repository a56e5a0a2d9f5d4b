import { Injectable } from '@nestjs/common';
import { Readable } from 'node:stream';
import { NameRecord, TrackKind } from '../../chain/account-layouts';
import { ChainReader } from '../../chain/chain-reader';
import { parseAddress } from '../../chain/tape-label';
import { ObjectReader } from '../../tracks/object-reader';
import {
  S3BackendInvalidRangeError,
  S3BackendNoSuchKeyError,
  S3Bucket,
  S3ByteRange,
  S3ObjectHead,
  S3ObjectInfo,
  S3ObjectStream,
} from '../s3-backend';
import { toObjectHead, toObjectInfo } from './object-records';
import { TapeBucket, TapeDirectory } from './tape-directory';

/** The read side of S3 over tapes: buckets by label, objects from the chain's name records. */
@Injectable()
export class TapeObjectReads {
  constructor(
    private readonly chain: ChainReader,
    private readonly tapes: TapeDirectory,
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
    const tape = await this.tapes.readable(bucket);
    const names = await this.chain.listNames(tape.address);
    return names.filter((n) => n.name.startsWith(prefix)).map((n) => toObjectInfo(n));
  }

  async headObject(bucket: S3Bucket, key: string): Promise<S3ObjectHead> {
    return toObjectHead(await this.record(await this.tapes.readable(bucket), key));
  }

  async getObject(bucket: S3Bucket, key: string, range?: S3ByteRange): Promise<S3ObjectStream> {
    const record = await this.record(await this.tapes.readable(bucket), key);
    const opened = await this.reader.open({
      kind: record.kind === TrackKind.Manifest ? 'manifest' : 'blob',
      commitment: record.commitment,
      size: record.size,
    });
    const head = toObjectHead(record);
    if (range && (range.start > range.end || range.end >= opened.size)) {
      throw new S3BackendInvalidRangeError('the object changed since its size was read');
    }
    if (opened.size === 0) return { head, body: Readable.from([]) };
    const body = range ? opened.read(range.start, range.end) : opened.read(0, opened.size - 1);
    return { head, body };
  }

  private async record(tape: TapeBucket, key: string): Promise<NameRecord> {
    const [record] = await this.chain.getNames(tape.address, [key]);
    if (!record) throw new S3BackendNoSuchKeyError(key);
    return record;
  }
}
