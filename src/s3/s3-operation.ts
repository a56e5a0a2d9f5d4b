import type { S3Address } from './s3-address';
import { S3Error } from './s3-error';
import type { S3RequestKind } from './s3-request-meter';

/** The operations this endpoint implements, chosen by method, bucket/key and query (as S3 does). */
export type S3OperationName =
  | 'ListBuckets'
  | 'HeadBucket'
  | 'GetBucketLocation'
  | 'ListObjectsV2'
  | 'ListObjects'
  | 'CreateBucket'
  | 'DeleteObjects'
  | 'ListMultipartUploads'
  | 'HeadObject'
  | 'GetObject'
  | 'GetObjectAttributes'
  | 'PutObject'
  | 'CopyObject'
  | 'DeleteObject'
  | 'CreateMultipartUpload'
  | 'UploadPart'
  | 'UploadPartCopy'
  | 'CompleteMultipartUpload'
  | 'AbortMultipartUpload'
  | 'ListParts';

/** Sub-resources of S3 this endpoint does not implement: answered 501, never mistaken for data. */
const UNSUPPORTED_SUBRESOURCES = [
  'accelerate',
  'acl',
  'analytics',
  'attributes',
  'cors',
  'encryption',
  'intelligent-tiering',
  'inventory',
  'legal-hold',
  'lifecycle',
  'logging',
  'metrics',
  'notification',
  'object-lock',
  'ownershipControls',
  'policy',
  'policyStatus',
  'publicAccessBlock',
  'replication',
  'requestPayment',
  'restore',
  'retention',
  'select',
  'tagging',
  'torrent',
  'versioning',
  'versions',
  'website',
];

const READ_OPERATIONS = new Set<S3OperationName>([
  'ListBuckets',
  'HeadBucket',
  'GetBucketLocation',
  'ListObjectsV2',
  'ListObjects',
  'ListMultipartUploads',
  'HeadObject',
  'GetObject',
  'GetObjectAttributes',
  'ListParts',
]);

export function meterKind(operation: S3OperationName): S3RequestKind {
  return READ_OPERATIONS.has(operation) ? 'read' : 'write';
}

export function resolveOperation(
  method: string,
  address: S3Address,
  copySource: string | undefined,
): S3OperationName {
  const q = address.query;
  if (method === 'GET' && address.key !== undefined && q.has('attributes')) {
    return 'GetObjectAttributes';
  }
  const unsupported = UNSUPPORTED_SUBRESOURCES.find((name) => q.has(name));
  if (unsupported) {
    throw new S3Error(
      'NotImplemented',
      `the ${unsupported} sub-resource is not implemented by this gateway`,
    );
  }
  if (address.bucket === undefined) {
    if (method === 'GET') return 'ListBuckets';
    throw notAllowed(method, 'the service');
  }
  if (address.key === undefined) {
    switch (method) {
      case 'GET':
        if (q.has('location')) return 'GetBucketLocation';
        if (q.has('uploads')) return 'ListMultipartUploads';
        if (q.get('list-type') === '2') return 'ListObjectsV2';
        return 'ListObjects';
      case 'HEAD':
        return 'HeadBucket';
      case 'POST':
        if (q.has('delete')) return 'DeleteObjects';
        throw new S3Error('NotImplemented', 'this POST on a bucket is not implemented');
      case 'PUT':
        return 'CreateBucket';
      default:
        throw notAllowed(
          method,
          'a bucket (buckets are tapes; create and delete them with the tape CLI)',
        );
    }
  }
  switch (method) {
    case 'GET':
      return q.has('uploadId') ? 'ListParts' : 'GetObject';
    case 'HEAD':
      return 'HeadObject';
    case 'PUT':
      if (q.has('partNumber') || q.has('uploadId')) {
        return copySource !== undefined ? 'UploadPartCopy' : 'UploadPart';
      }
      return copySource !== undefined ? 'CopyObject' : 'PutObject';
    case 'POST':
      if (q.has('uploads')) return 'CreateMultipartUpload';
      if (q.has('uploadId')) return 'CompleteMultipartUpload';
      throw new S3Error('NotImplemented', 'this POST on an object is not implemented');
    case 'DELETE':
      return q.has('uploadId') ? 'AbortMultipartUpload' : 'DeleteObject';
    default:
      throw notAllowed(method, 'an object');
  }
}

/**
 * OPTIONS is a browser's CORS preflight, answered before authentication as S3 answers it: no
 * Origin is 400 BadRequest, else 403 (no bucket here has a CORS configuration: S3 endpoints are
 * for tools, sites are served by the site routes).
 */
export function refuseCorsPreflight(method: string, origin: string | undefined): void {
  if (method !== 'OPTIONS') return;
  if (origin === undefined) {
    throw new S3Error('BadRequest', 'Insufficient information. Origin request header needed.');
  }
  throw new S3Error('AccessForbidden', 'CORSResponse: CORS is not enabled for this bucket.');
}

function notAllowed(method: string, what: string): S3Error {
  return new S3Error(
    'MethodNotAllowed',
    `the specified method ${method} is not allowed against ${what}`,
    {
      Method: method,
    },
  );
}
