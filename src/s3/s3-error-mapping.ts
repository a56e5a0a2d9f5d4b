import {
  S3BackendAccessDeniedError,
  S3BackendEntityTooLargeError,
  S3BackendInsufficientCapacityError,
  S3BackendInvalidArgumentError,
  S3BackendInvalidPartError,
  S3BackendInvalidRangeError,
  S3BackendNoSuchBucketError,
  S3BackendNoSuchKeyError,
  S3BackendNoSuchUploadError,
  S3BackendSlowDownError,
  S3BackendTapeExpiredError,
  S3BackendUnpaidError,
} from './s3-backend';
import { S3Error } from './s3-error';

/** The texts users see for the two tape-specific refusals; each names the command that fixes it. */
export function insufficientCapacityMessage(detail = ''): string {
  return `insufficient capacity${detail ? `: ${detail}` : ''} (fix: tape resize --add <size>)`;
}

export function tapeExpiredMessage(detail = ''): string {
  return `tape expired${detail ? `: ${detail}` : ''} (fix: tape extend --duration <time>)`;
}

/**
 * Backend failures as S3 errors. A full tape has no S3 code: it is answered `507
 * InsufficientStorage` (aws-cli prints the code and message; neither aws-cli nor the SDKs retry
 * a 507, which would re-send the whole body). An expired tape is `403 AccessDenied`: the
 * reservation, not the request, is at fault, and 403 is final for every client.
 * Returns undefined for errors that are not the backend's typed ones (they become 500).
 */
export function backendErrorToS3(
  error: unknown,
  resource: { key?: string; uploadId?: string },
): S3Error | undefined {
  if (error instanceof S3Error) return error;
  if (error instanceof S3BackendNoSuchBucketError) {
    return new S3Error('NoSuchBucket', 'the specified bucket does not exist');
  }
  if (error instanceof S3BackendNoSuchKeyError) {
    return new S3Error('NoSuchKey', 'the specified key does not exist', keyDetail(resource.key));
  }
  if (error instanceof S3BackendNoSuchUploadError) {
    return new S3Error(
      'NoSuchUpload',
      'the specified multipart upload does not exist; it may have been aborted or completed',
      resource.uploadId === undefined ? {} : { UploadId: resource.uploadId },
    );
  }
  if (error instanceof S3BackendInvalidPartError) {
    return new S3Error(
      'InvalidPart',
      withDetail(
        'one or more of the specified parts could not be found or its ETag did not match',
        error.message,
      ),
    );
  }
  if (error instanceof S3BackendInsufficientCapacityError) {
    return new S3Error('InsufficientStorage', insufficientCapacityMessage(error.message));
  }
  if (error instanceof S3BackendUnpaidError) {
    return new S3Error('InsufficientStorage', error.message);
  }
  if (error instanceof S3BackendTapeExpiredError) {
    return new S3Error('AccessDenied', tapeExpiredMessage(error.message));
  }
  if (error instanceof S3BackendAccessDeniedError) {
    return new S3Error('AccessDenied', error.message || 'access denied');
  }
  if (error instanceof S3BackendEntityTooLargeError) {
    return new S3Error(
      'EntityTooLarge',
      withDetail('your proposed upload exceeds the maximum allowed size', error.message),
    );
  }
  if (error instanceof S3BackendSlowDownError) {
    return new S3Error(
      'SlowDown',
      withDetail('please reduce your request rate', error.message),
      {},
      { 'retry-after': '5' },
    );
  }
  if (error instanceof S3BackendInvalidArgumentError) {
    return new S3Error('InvalidArgument', error.message);
  }
  if (error instanceof S3BackendInvalidRangeError) {
    return new S3Error('InvalidRange', 'the requested range is not satisfiable');
  }
  return undefined;
}

function keyDetail(key: string | undefined): Record<string, string> {
  return key === undefined ? {} : { Key: key };
}

function withDetail(message: string, detail: string): string {
  return detail ? `${message}: ${detail}` : message;
}
