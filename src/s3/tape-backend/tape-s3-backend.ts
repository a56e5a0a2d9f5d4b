import { Injectable } from '@nestjs/common';
import { S3Backend } from '../s3-backend';
import { TapeMultipartUploads } from './tape-multipart-uploads';
import { TapeObjectReads } from './tape-object-reads';
import { TapeObjectWrites } from './tape-object-writes';

/**
 * S3 over tapes: a bucket is a tape (by label), a key is an object name, an ETag is the track
 * commitment. Reads come from the chain's name records and the verified track store; writes are
 * received into the spool, stored as tracks, then published on chain by the gateway as the
 * tape's delegate (docs/s3.md, "Tapes behind the endpoint"). Each side lives in its own class;
 * every operation here hands the port's arguments, as they are, to the side that does the work.
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

  findBucket(...args: Parameters<S3Backend['findBucket']>) {
    return this.reads.findBucket(...args);
  }

  findBucketOfTape(...args: Parameters<S3Backend['findBucketOfTape']>) {
    return this.reads.findBucketOfTape(...args);
  }

  listObjects(...args: Parameters<S3Backend['listObjects']>) {
    return this.reads.listObjects(...args);
  }

  headObject(...args: Parameters<S3Backend['headObject']>) {
    return this.reads.headObject(...args);
  }

  getObject(...args: Parameters<S3Backend['getObject']>) {
    return this.reads.getObject(...args);
  }

  putObject(...args: Parameters<S3Backend['putObject']>) {
    return this.writes.putObject(...args);
  }

  copyObject(...args: Parameters<S3Backend['copyObject']>) {
    return this.writes.copyObject(...args);
  }

  deleteObjects(...args: Parameters<S3Backend['deleteObjects']>) {
    return this.writes.deleteObjects(...args);
  }

  createMultipartUpload(...args: Parameters<S3Backend['createMultipartUpload']>) {
    return this.uploads.create(...args);
  }

  uploadPart(...args: Parameters<S3Backend['uploadPart']>) {
    return this.uploads.uploadPart(...args);
  }

  listParts(...args: Parameters<S3Backend['listParts']>) {
    return this.uploads.listParts(...args);
  }

  completeMultipartUpload(...args: Parameters<S3Backend['completeMultipartUpload']>) {
    return this.uploads.complete(...args);
  }

  abortMultipartUpload(...args: Parameters<S3Backend['abortMultipartUpload']>) {
    return this.uploads.abort(...args);
  }

  listMultipartUploads(...args: Parameters<S3Backend['listMultipartUploads']>) {
    return this.uploads.list(...args);
  }
}
