import { createHash } from 'node:crypto';
import { compositeChecksum } from '../checksums';
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
