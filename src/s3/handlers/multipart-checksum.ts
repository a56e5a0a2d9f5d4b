import type { IncomingHttpHeaders } from 'node:http';
import {
  ChecksumAlgorithm,
  MULTIPART_CHECKSUM_TYPES,
  parseChecksumAlgorithm,
} from '../body/checksums';
import { singleHeader } from '../http-header';
import type { ChecksumType } from '../object-metadata';
import { S3Error } from '../s3-error';

/**
 * CreateMultipartUpload's `x-amz-checksum-algorithm` and `x-amz-checksum-type`: which checksum
 * every part and the object get. The type defaults to what S3 uses for the algorithm (COMPOSITE,
 * FULL_OBJECT for CRC64NVME); a combination S3 does not offer is 400 InvalidRequest.
 */
export function readMultipartChecksum(
  headers: IncomingHttpHeaders,
): { algorithm: ChecksumAlgorithm; type: ChecksumType } | undefined {
  const algorithmText = singleHeader(headers, 'x-amz-checksum-algorithm');
  const typeText = singleHeader(headers, 'x-amz-checksum-type')?.trim().toUpperCase();
  if (algorithmText === undefined) {
    if (typeText !== undefined) {
      throw new S3Error('InvalidRequest', 'x-amz-checksum-type needs x-amz-checksum-algorithm');
    }
    return undefined;
  }
  const algorithm = parseChecksumAlgorithm(algorithmText);
  if (!algorithm) {
    throw new S3Error(
      'InvalidRequest',
      'x-amz-checksum-algorithm must be CRC32, CRC32C, CRC64NVME, SHA1 or SHA256',
    );
  }
  const offered = MULTIPART_CHECKSUM_TYPES[algorithm];
  const type = (typeText ?? offered[0]) as ChecksumType;
  if (!offered.includes(type)) {
    throw new S3Error(
      'InvalidRequest',
      `the ${algorithm.toUpperCase()} checksum algorithm does not support the ${typeText} checksum type`,
    );
  }
  return { algorithm, type };
}

/** The response headers that tell the client which checksum the upload keeps. */
export function multipartChecksumHeaders(
  checksum: { algorithm: ChecksumAlgorithm; type: ChecksumType } | undefined,
): Record<string, string> {
  if (!checksum) return {};
  return {
    'x-amz-checksum-algorithm': checksum.algorithm.toUpperCase(),
    'x-amz-checksum-type': checksum.type,
  };
}
