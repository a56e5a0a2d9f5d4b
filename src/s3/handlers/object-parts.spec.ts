import { objectAttributesXml, partSlice, requestedPartNumber } from './object-parts';
import type { S3ObjectHead } from '../s3-backend';
import { codeOf } from '../s3-error-code.spec-support';

const MiB = 1024 * 1024;

function head(over: Partial<S3ObjectHead> = {}): S3ObjectHead {
  return {
    key: 'k',
    size: 3,
    etag: '37b51d194a7513e45b56f6524f2d51f2',
    lastModified: new Date(0),
    contentType: 'application/octet-stream',
    metadata: {},
    ...over,
  };
}

const multipart = head({
  size: 3 * 5 * MiB + MiB,
  etag: 'abc-4',
  parts: { sizes: [5 * MiB, 5 * MiB, 5 * MiB, MiB] },
});

describe('requestedPartNumber', () => {
  const of = (query: Record<string, string>, headers: Record<string, string> = {}) =>
    requestedPartNumber(new Map(Object.entries(query)), headers);

  it('is 1..10000, and never together with Range', () => {
    expect(of({})).toBeUndefined();
    expect(of({ partNumber: '3' })).toBe(3);
    expect(codeOf(() => of({ partNumber: '0' }))).toBe('InvalidArgument');
    expect(codeOf(() => of({ partNumber: '10001' }))).toBe('InvalidArgument');
    expect(codeOf(() => of({ partNumber: 'x' }))).toBe('InvalidArgument');
    expect(codeOf(() => of({ partNumber: '1' }, { range: 'bytes=0-1' }))).toBe('InvalidRequest');
  });
});

describe('partSlice', () => {
  it('serves part 1 of an object not made of parts as the whole object, no parts count', () => {
    expect(partSlice(head(), 1)).toEqual({});
    expect(codeOf(() => partSlice(head(), 2))).toBe('InvalidPart');
  });

  it("serves each part of a completed multipart upload by its bytes, with the parts count (s3-tests' test_multipart_get_part)", () => {
    expect(partSlice(multipart, 1)).toEqual({
      partsCount: 4,
      range: { start: 0, end: 5 * MiB - 1 },
    });
    expect(partSlice(multipart, 4)).toEqual({
      partsCount: 4,
      range: { start: 15 * MiB, end: 16 * MiB - 1 },
    });
    expect(codeOf(() => partSlice(multipart, 5))).toBe('InvalidPart');
  });

  it("carries the part's own checksum when kept (s3-tests' test_multipart_use_cksum_helper_*)", () => {
    const withSums = head({
      size: 2,
      parts: { sizes: [1, 1], checksums: ['AQIDBA==', 'BQYHCA=='] },
    });
    expect(partSlice(withSums, 2)).toEqual({
      partsCount: 2,
      range: { start: 1, end: 1 },
      checksum: 'BQYHCA==',
    });
  });
});

describe('objectAttributesXml (GetObjectAttributes)', () => {
  const all = { 'x-amz-object-attributes': 'ETag,Checksum,ObjectParts,StorageClass,ObjectSize' };

  it('answers a single-part object without ObjectParts, its ETag unquoted', () => {
    const xml = objectAttributesXml(
      head({ checksum: { algorithm: 'sha256', type: 'FULL_OBJECT', value: 'c2hh' } }),
      all,
    );
    expect(xml).toContain('<ETag>37b51d194a7513e45b56f6524f2d51f2</ETag>');
    expect(xml).toContain(
      '<Checksum><ChecksumSHA256>c2hh</ChecksumSHA256><ChecksumType>FULL_OBJECT</ChecksumType></Checksum>',
    );
    expect(xml).toContain('<StorageClass>STANDARD</StorageClass><ObjectSize>3</ObjectSize>');
    expect(xml).not.toContain('ObjectParts');
  });

  it('lists the parts of a multipart object, paginated by x-amz-max-parts and the marker', () => {
    const page = objectAttributesXml(multipart, {
      ...all,
      'x-amz-max-parts': '1',
      'x-amz-part-number-marker': '2',
    });
    expect(page).toContain(
      '<ObjectParts><PartsCount>4</PartsCount><PartNumberMarker>2</PartNumberMarker>' +
        '<NextPartNumberMarker>3</NextPartNumberMarker><MaxParts>1</MaxParts><IsTruncated>true</IsTruncated>' +
        `<Part><PartNumber>3</PartNumber><Size>${5 * MiB}</Size></Part></ObjectParts>`,
    );
    const rest = objectAttributesXml(multipart, { ...all, 'x-amz-part-number-marker': '3' });
    expect(rest).toContain('<IsTruncated>false</IsTruncated>');
    expect(rest).toContain(`<Part><PartNumber>4</PartNumber><Size>${MiB}</Size></Part>`);
  });

  it("gives each part's checksum when kept", () => {
    const xml = objectAttributesXml(
      head({
        size: 2,
        checksum: { algorithm: 'crc32', type: 'COMPOSITE', value: 'AAAAAA==-2' },
        parts: { sizes: [1, 1], checksums: ['AQIDBA==', 'BQYHCA=='] },
      }),
      { 'x-amz-object-attributes': 'ObjectParts' },
    );
    expect(xml).toContain(
      '<Part><ChecksumCRC32>AQIDBA==</ChecksumCRC32><PartNumber>1</PartNumber><Size>1</Size></Part>',
    );
    expect(xml).not.toContain('<ETag>');
  });

  it('requires x-amz-object-attributes and known names', () => {
    expect(codeOf(() => objectAttributesXml(head(), {}))).toBe('InvalidArgument');
    expect(
      codeOf(() => objectAttributesXml(head(), { 'x-amz-object-attributes': 'ETag,Owner' })),
    ).toBe('InvalidArgument');
  });
});
