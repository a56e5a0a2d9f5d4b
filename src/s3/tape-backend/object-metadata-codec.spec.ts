import { createHash } from 'node:crypto';
import { compositeChecksum } from '../body/checksums';
import { NO_METADATA, ObjectMetadata, readStoredHeaders } from '../object-metadata';
import { decodeObjectMetadata, encodeObjectMetadata } from './object-metadata-codec';

const full: ObjectMetadata = {
  headers: {
    'cache-control': 'public, max-age=3600',
    'content-disposition': 'attachment; filename="r\u00e9sum\u00e9.pdf"',
    'content-encoding': 'gzip',
    'content-language': 'de-CH',
    expires: 'Thu, 02 Jan 2031 03:04:05 GMT',
  },
  user: { author: 'ada', empty: '' },
  checksum: {
    algorithm: 'sha256',
    type: 'COMPOSITE',
    value: `${createHash('sha256').update('x').digest('base64')}-3`,
  },
};

describe('object metadata in a name tail', () => {
  it('round-trips headers, x-amz-meta-* and a composite checksum', () => {
    const tail = encodeObjectMetadata(full)!;
    expect(decodeObjectMetadata(tail)).toEqual(full);
    // Compact: a version byte, then per field an id and length-prefixed text; digests raw.
    expect(tail.length).toBeLessThan(220);
  });

  it('round-trips each algorithm as FULL_OBJECT', () => {
    for (const [algorithm, bytes] of [
      ['crc32', 4],
      ['crc32c', 4],
      ['crc64nvme', 8],
      ['sha1', 20],
      ['sha256', 32],
    ] as const) {
      const value = Buffer.alloc(bytes, 0x5a).toString('base64');
      const m: ObjectMetadata = {
        headers: {},
        user: {},
        checksum: { algorithm, type: 'FULL_OBJECT', value },
      };
      const tail = encodeObjectMetadata(m)!;
      expect(tail.length).toBe(1 + 1 + 1 + 1 + 2 + bytes);
      expect(decodeObjectMetadata(tail)).toEqual(m);
    }
  });

  it('round-trips the S3 ETag (single-part and multipart) in 19 bytes', () => {
    const md5 = createHash('md5').update('bar').digest('hex');
    for (const etag of [md5, `${md5}-12`]) {
      const tail = encodeObjectMetadata({ headers: {}, user: {}, etag })!;
      expect(tail.length).toBe(1 + 1 + 16 + 2);
      expect(decodeObjectMetadata(tail)).toEqual({ headers: {}, user: {}, etag });
    }
  });

  it('round-trips part sizes as runs of equal sizes, with the parts checksums', () => {
    const sizes = [5, 5, 5, 5, 5, 1].map((n) => n * 1024 * 1024);
    const checksums = sizes.map((_, i) => createHash('sha256').update(`p${i}`).digest('base64'));
    const m: ObjectMetadata = {
      headers: {},
      user: {},
      checksum: full.checksum,
      parts: { sizes, checksums },
    };
    const tail = encodeObjectMetadata(m)!;
    // checksum 37, two runs of sizes 1 + 2 + 2 * 10, checksums 1 + 1 + 2 + 6 * 32
    expect(tail.length).toBe(1 + 37 + 23 + 4 + 6 * 32);
    expect(decodeObjectMetadata(tail)).toEqual(m);
    const plain = encodeObjectMetadata({ headers: {}, user: {}, parts: { sizes } })!;
    expect(decodeObjectMetadata(plain)).toEqual({ headers: {}, user: {}, parts: { sizes } });
  });

  it('reads a tail claiming more than 10,000 parts as none (no unbounded expansion)', () => {
    const huge = Buffer.alloc(1 + 1 + 2 + 10);
    huge.writeUInt8(1, 0);
    huge.writeUInt8(64, 1);
    huge.writeUInt16LE(1, 2);
    huge.writeUInt16LE(0xffff, 4);
    huge.writeBigUInt64LE(1n, 6);
    expect(decodeObjectMetadata(huge)).toBe(NO_METADATA);
  });

  it('writes no tail for an object without metadata, and reads none from a name without one', () => {
    expect(encodeObjectMetadata({ headers: {}, user: {} })).toBeUndefined();
    expect(decodeObjectMetadata(undefined)).toBe(NO_METADATA);
    expect(decodeObjectMetadata(Buffer.alloc(0))).toBe(NO_METADATA);
  });

  it('reads a tail it cannot understand as none instead of failing the object', () => {
    const tail = encodeObjectMetadata(full)!;
    expect(decodeObjectMetadata(Buffer.from([2, ...tail.subarray(1)]))).toBe(NO_METADATA);
    expect(decodeObjectMetadata(tail.subarray(0, tail.length - 3))).toBe(NO_METADATA);
    expect(decodeObjectMetadata(Buffer.from([1, 99, 0]))).toBe(NO_METADATA);
  });
});

describe('readStoredHeaders', () => {
  it('keeps the five headers as sent and drops aws-chunked (the framing) from Content-Encoding', () => {
    expect(
      readStoredHeaders({
        'cache-control': 'no-cache',
        'content-encoding': 'aws-chunked,gzip',
        'content-type': 'text/plain',
        'x-amz-meta-a': 'b',
      }),
    ).toEqual({ 'cache-control': 'no-cache', 'content-encoding': 'gzip' });
    expect(readStoredHeaders({ 'content-encoding': 'aws-chunked' })).toEqual({});
    // s3-tests' test_object_content_encoding_aws_chunked: the rest as sent
    expect(readStoredHeaders({ 'content-encoding': 'deflate, gzip' })).toEqual({
      'content-encoding': 'deflate, gzip',
    });
    expect(readStoredHeaders({ 'content-encoding': 'aws-chunked, deflate, gzip' })).toEqual({
      'content-encoding': 'deflate, gzip',
    });
    expect(readStoredHeaders({ 'content-encoding': 'aws-chunked, aws-chunked' })).toEqual({});
  });
});

describe('compositeChecksum', () => {
  it("is the algorithm over the parts' raw digests, then -<parts>", () => {
    const parts = [Buffer.from('part one'), Buffer.from('part two')].map((p) =>
      createHash('sha1').update(p).digest(),
    );
    const expected = createHash('sha1').update(Buffer.concat(parts)).digest('base64');
    expect(
      compositeChecksum(
        'sha1',
        parts.map((p) => p.toString('base64')),
      ),
    ).toBe(`${expected}-2`);
  });
});
