import { Readable, Transform } from 'node:stream';
import { ChecksumAlgorithm, compositeChecksum, newChecksum } from '../body/checksums';
import { ChecksumType, ObjectChecksum } from '../object-metadata';
import { ExpectedChecksum, S3CompletedPart, S3PartInfo } from '../s3-backend';
import { S3Error } from '../s3-error';

/**
 * CompleteMultipartUpload's `x-amz-checksum-<algorithm>` against the object's checksum (the
 * digest; a composite's `-N` may be given or not): 400 BadDigest when it differs, or when the
 * object has none in that algorithm.
 */
export function assertChecksumMatches(
  expected: ExpectedChecksum,
  actual: ObjectChecksum | undefined,
): void {
  const digest = (value: string) => value.split('-')[0];
  if (actual?.algorithm === expected.algorithm && digest(actual.value) === digest(expected.value)) {
    return;
  }
  throw new S3Error(
    'BadDigest',
    `the ${expected.algorithm.toUpperCase()} you specified did not match the calculated checksum`,
  );
}

/**
 * The checksum a completed multipart object keeps, in the upload's algorithm and type:
 * COMPOSITE from the listed parts' checksums (kept as each part arrived), FULL_OBJECT computed
 * over the assembled bytes as they stream into the spool. Returns the body to commit (the same
 * one, or a copy that counts) and the value, known once that body ended.
 */
export function multipartChecksum(
  want: { algorithm: ChecksumAlgorithm; type: ChecksumType } | undefined,
  listed: S3CompletedPart[],
  stored: S3PartInfo[],
  body: Readable,
): { body: Readable; value: () => ObjectChecksum | undefined } {
  if (!want) return { body, value: () => undefined };
  const { algorithm, type } = want;
  if (type === 'COMPOSITE') {
    const byNumber = new Map(stored.map((p) => [p.partNumber, p.checksum]));
    const values = listed.map((p) => byNumber.get(p.partNumber));
    // Parts stored before the upload had an algorithm cannot occur; keep no checksum if one did.
    if (values.some((v) => v === undefined)) return { body, value: () => undefined };
    const value = compositeChecksum(algorithm, values as string[]);
    return { body, value: () => ({ algorithm, type, value }) };
  }
  const sum = newChecksum(algorithm);
  const counted = body.pipe(
    new Transform({
      transform(chunk: Buffer, _encoding, done) {
        sum.update(chunk);
        done(null, chunk);
      },
    }),
  );
  body.once('error', (error) => counted.destroy(error));
  return { body: counted, value: () => ({ algorithm, type, value: sum.digestBase64() }) };
}
