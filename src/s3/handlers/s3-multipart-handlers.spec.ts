import { onePerNumber } from './s3-multipart-handlers';
import type { S3PartInfo } from '../s3-backend';
import { S3Error } from '../s3-error';

const stored = new Map<number, S3PartInfo>(
  [
    { partNumber: 1, etag: 'a-second', size: 8, lastModified: new Date(0) },
    { partNumber: 2, etag: 'b', size: 8, lastModified: new Date(0) },
  ].map((p) => [p.partNumber, p]),
);

describe('onePerNumber (the part list of CompleteMultipartUpload)', () => {
  it("takes a part listed twice as the part stored, whichever entry is last (s3-tests' test_multipart_resend_first_finishes_last)", () => {
    expect(
      onePerNumber(
        [
          { partNumber: 1, etag: 'a-second' },
          { partNumber: 1, etag: 'a-first' },
          { partNumber: 2, etag: 'b' },
        ],
        stored,
      ),
    ).toEqual([
      { partNumber: 1, etag: 'a-second' },
      { partNumber: 2, etag: 'b' },
    ]);
    expect(
      onePerNumber(
        [
          { partNumber: 1, etag: 'a-first' },
          { partNumber: 1, etag: 'a-second' },
        ],
        stored,
      ),
    ).toEqual([{ partNumber: 1, etag: 'a-second' }]);
  });

  it('keeps an entry that matches nothing, for the ETag check to refuse', () => {
    expect(
      onePerNumber(
        [
          { partNumber: 1, etag: 'x' },
          { partNumber: 1, etag: 'y' },
        ],
        stored,
      ),
    ).toEqual([{ partNumber: 1, etag: 'x' }]);
  });

  it('refuses a decreasing part number with InvalidPartOrder', () => {
    let code = '';
    try {
      onePerNumber(
        [
          { partNumber: 2, etag: 'b' },
          { partNumber: 1, etag: 'a-second' },
        ],
        stored,
      );
    } catch (error) {
      code = (error as S3Error).code;
    }
    expect(code).toBe('InvalidPartOrder');
  });
});
