import { Injectable } from '@nestjs/common';
import { ChecksumAlgorithm } from '../body/checksums';
import { S3WriteCondition } from '../handlers/write-conditions';
import {
  ExpectedChecksum,
  S3Backend,
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
import { TapeMultipartUploads } from './tape-multipart-uploads';
import { TapeObjectReads } from './tape-object-reads';
import { TapeObjectWrites } from './tape-object-writes';

/**
 * S3 over tapes: a bucket is a tape (by label), a key is an object name, an ETag is the track
 * commitment. Reads come from the chain's name records and the verified track store; writes are
 * received into the spool, stored as tracks, then published on chain by the gateway as the
 * tape's delegate (docs/s3.md, "Tapes behind the endpoint"). Each side lives in its own class.
 */
@Injectable()
export class TapeS3Backend extends S3Backend {
  constructor(
    private readonly reads: TapeObjectReads,
    private readonly writes: TapeObjectWrites,
    private readonly uploads: TapeMultipartUploads,
  ) {
    super();
  }

  findBucket(name: string): Promise<S3Bucket | null> {
    return this.reads.findBucket(name);
  }

  findBucketOfTape(tapeAddress: string): Promise<S3Bucket | null> {
    return this.reads.findBucketOfTape(tapeAddress);
  }

  listObjects(bucket: S3Bucket, prefix: string): Promise<S3ObjectInfo[]> {
    return this.reads.listObjects(bucket, prefix);
  }

  headObject(bucket: S3Bucket, key: string): Promise<S3ObjectHead> {
    return this.reads.headObject(bucket, key);
  }

  getObject(bucket: S3Bucket, key: string, range?: S3ByteRange): Promise<S3ObjectStream> {
    return this.reads.getObject(bucket, key, range);
  }

  putObject(bucket: S3Bucket, input: S3PutObjectInput): Promise<S3WriteResult> {
    return this.writes.putObject(bucket, input);
  }

  copyObject(bucket: S3Bucket, input: S3CopyObjectInput): Promise<S3WriteResult> {
    return this.writes.copyObject(bucket, input);
  }

  deleteObjects(bucket: S3Bucket, keys: string[]): Promise<S3DeleteOutcome[]> {
    return this.writes.deleteObjects(bucket, keys);
  }

  createMultipartUpload(
    bucket: S3Bucket,
    input: S3CreateMultipartInput,
  ): Promise<{ uploadId: string }> {
    return this.uploads.create(bucket, input);
  }

  uploadPart(
    bucket: S3Bucket,
    input: S3UploadPartInput,
  ): Promise<{ etag: string; checksum?: { algorithm: ChecksumAlgorithm; value: string } }> {
    return this.uploads.uploadPart(bucket, input);
  }

  listParts(bucket: S3Bucket, key: string, uploadId: string): Promise<S3PartInfo[]> {
    return this.uploads.listParts(bucket, key, uploadId);
  }

  completeMultipartUpload(
    bucket: S3Bucket,
    key: string,
    uploadId: string,
    parts: S3CompletedPart[],
    condition?: S3WriteCondition,
    expected?: ExpectedChecksum,
  ): Promise<S3WriteResult> {
    return this.uploads.complete(bucket, key, uploadId, parts, condition, expected);
  }

  override completedMultipartUpload(
    bucket: S3Bucket,
    key: string,
    uploadId: string,
  ): Promise<S3WriteResult | null> {
    return this.uploads.completed(bucket, key, uploadId);
  }

  abortMultipartUpload(bucket: S3Bucket, key: string, uploadId: string): Promise<void> {
    return this.uploads.abort(bucket, key, uploadId);
  }

  listMultipartUploads(bucket: S3Bucket): Promise<S3MultipartUploadInfo[]> {
    return this.uploads.list(bucket);
  }
}
