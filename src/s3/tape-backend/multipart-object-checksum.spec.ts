import { codeOf } from '../s3-error-code.spec-support';
import { assertChecksumMatches } from './multipart-object-checksum';

describe("CompleteMultipartUpload's x-amz-checksum-* (s3-tests' test_multipart_checksum_sha256, test_multipart_use_cksum_helper_*)", () => {
  const composite = { algorithm: 'sha256', type: 'COMPOSITE', value: 'Ok6Cs5b9=-1' } as const;
  const full = { algorithm: 'crc64nvme', type: 'FULL_OBJECT', value: 'i+6LR0y3eFo=' } as const;

  it("accepts the object's checksum, a composite one with or without its -N", () => {
    expect(
      codeOf(() => assertChecksumMatches({ algorithm: 'sha256', value: 'Ok6Cs5b9=-1' }, composite)),
    ).toBe('no error');
    expect(
      codeOf(() => assertChecksumMatches({ algorithm: 'sha256', value: 'Ok6Cs5b9=' }, composite)),
    ).toBe('no error');
    expect(
      codeOf(() => assertChecksumMatches({ algorithm: 'crc64nvme', value: 'i+6LR0y3eFo=' }, full)),
    ).toBe('no error');
  });

  it('refuses another value, another algorithm, or an object without a checksum with BadDigest', () => {
    expect(
      codeOf(() => assertChecksumMatches({ algorithm: 'sha256', value: 'bad' }, composite)),
    ).toBe('BadDigest');
    expect(
      codeOf(() => assertChecksumMatches({ algorithm: 'sha1', value: 'Ok6Cs5b9=' }, composite)),
    ).toBe('BadDigest');
    expect(
      codeOf(() => assertChecksumMatches({ algorithm: 'crc32', value: 'AAAAAA==' }, undefined)),
    ).toBe('BadDigest');
  });
});
