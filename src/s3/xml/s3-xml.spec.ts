import { XMLParser } from 'fast-xml-parser';
import { S3Error } from '../s3-error';
import { codeOf } from '../s3-error-code.spec-support';
import { errorXml, listObjectsV1Xml, listObjectsV2Xml, ListV2Xml } from './s3-xml-responses';
import {
  MAX_REQUEST_XML_BYTES,
  parseCompleteMultipartUpload,
  parseDeleteObjects,
} from './s3-xml-requests';
import { escapeXml } from './xml-writer';

const reader = new XMLParser({
  parseTagValue: false,
  trimValues: false,
  isArray: (n) => n === 'Contents',
});

const listing = (over: Partial<ListV2Xml>): ListV2Xml => ({
  bucket: 'bucket',
  prefix: '',
  delimiter: '',
  maxKeys: 1000,
  isTruncated: false,
  contents: [],
  commonPrefixes: [],
  urlEncoded: false,
  ...over,
});

describe('response XML', () => {
  it('escapes markup and control characters so a parser gets the key back exactly', () => {
    const key = `a&b<c>"d'e\r\nf\u0001g`;
    expect(escapeXml(key)).toBe('a&amp;b&lt;c&gt;&quot;d&apos;e&#xD;\nf&#x1;g');
    const xml = listObjectsV2Xml(
      listing({ contents: [{ key: 'x<&>y', size: 3, etag: 'abc', lastModified: new Date(0) }] }),
    );
    const parsed = reader.parse(xml);
    expect(parsed.ListBucketResult.Contents[0].Key).toBe('x<&>y');
    expect(parsed.ListBucketResult.Contents[0].ETag).toBe('"abc"');
    expect(parsed.ListBucketResult.Contents[0].LastModified).toBe('1970-01-01T00:00:00.000Z');
  });

  it('url-encodes keys, prefixes, delimiter and start-after with encoding-type=url', () => {
    const xml = listObjectsV2Xml(
      listing({
        prefix: 'dïr/',
        delimiter: '/',
        startAfter: 'a b',
        urlEncoded: true,
        contents: [{ key: 'dïr/a b+c&.html', size: 1, etag: 'e', lastModified: new Date(0) }],
        commonPrefixes: ['dïr/sub dir/'],
      }),
    );
    const result = reader.parse(xml).ListBucketResult;
    expect(result.EncodingType).toBe('url');
    expect(result.Prefix).toBe('d%C3%AFr/');
    expect(result.Delimiter).toBe('/');
    expect(result.StartAfter).toBe('a%20b');
    expect(result.Contents[0].Key).toBe('d%C3%AFr/a%20b%2Bc%26.html');
    expect(result.CommonPrefixes.Prefix).toBe('d%C3%AFr/sub%20dir/');
    expect(result.KeyCount).toBe('2');
  });

  it("shows each object's Owner in v1 listings and in v2 only with fetch-owner", () => {
    const contents = [{ key: 'k', size: 1, etag: 'e', lastModified: new Date(0) }];
    const v2 = reader.parse(listObjectsV2Xml(listing({ contents }))).ListBucketResult;
    expect(v2.Contents[0].Owner).toBeUndefined();
    const fetched = reader.parse(listObjectsV2Xml(listing({ contents, owner: 'AKID' })));
    expect(fetched.ListBucketResult.Contents[0].Owner).toEqual({ ID: 'AKID', DisplayName: 'AKID' });
    const v1 = reader.parse(
      listObjectsV1Xml({ ...listing({ contents }), marker: '', owner: 'AKID' }),
    ).ListBucketResult;
    expect(v1.Contents[0].Owner).toEqual({ ID: 'AKID', DisplayName: 'AKID' });
  });

  it('v1 with encoding-type=url encodes keys but sends the prefix as given (as botocore reads it)', () => {
    const xml = listObjectsV1Xml({
      ...listing({ prefix: '\n', urlEncoded: true }),
      marker: '',
      owner: 'AKID',
    });
    expect(reader.parse(xml).ListBucketResult.Prefix).toBe('\n');
  });

  it('writes S3 error documents with code, message, details, resource and request id', () => {
    const error = new S3Error('NoSuchKey', 'the specified key does not exist', { Key: 'a<b' });
    const parsed = reader.parse(errorXml(error, '/bucket/a<b', 'REQ1')).Error;
    expect(parsed).toEqual({
      Code: 'NoSuchKey',
      Message: 'the specified key does not exist',
      Key: 'a<b',
      Resource: '/bucket/a<b',
      RequestId: 'REQ1',
    });
    expect(error.status).toBe(404);
  });
});

describe('request XML', () => {
  it('parses DeleteObjects with escaped keys, numeric references and Quiet', () => {
    const body = Buffer.from(
      '<?xml version="1.0"?><Delete xmlns="http://s3.amazonaws.com/doc/2006-03-01/">' +
        '<Object><Key> a&amp;b&#x41;&#66;&lt;c </Key></Object>' +
        '<Object><Key>0123</Key><VersionId>null</VersionId></Object><Quiet>true</Quiet></Delete>',
    );
    expect(parseDeleteObjects(body)).toEqual({ quiet: true, keys: [' a&bAB<c ', '0123'] });
  });

  it('refuses DTDs (entity expansion / XML bombs), unknown entities and broken XML', () => {
    const bomb =
      '<?xml version="1.0"?><!DOCTYPE d [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;&a;&a;">]>' +
      '<Delete><Object><Key>&b;</Key></Object></Delete>';
    expect(codeOf(() => parseDeleteObjects(Buffer.from(bomb)))).toBe('MalformedXML');
    expect(
      codeOf(() =>
        parseDeleteObjects(Buffer.from('<Delete><Object><Key>&nbsp;</Key></Object></Delete>')),
      ),
    ).toBe('MalformedXML');
    expect(
      codeOf(() => parseDeleteObjects(Buffer.from('<Delete><Object><Key>a</Key></Object>'))),
    ).toBe('MalformedXML');
    expect(codeOf(() => parseDeleteObjects(Buffer.from('<Other/>')))).toBe('MalformedXML');
    expect(codeOf(() => parseDeleteObjects(Buffer.from('<Delete></Delete>')))).toBe('MalformedXML');
  });

  it('refuses more than 1000 keys to delete', () => {
    const objects = Array.from(
      { length: 1001 },
      (_, i) => `<Object><Key>k${i}</Key></Object>`,
    ).join('');
    const body = Buffer.from(`<Delete>${objects}</Delete>`);
    expect(body.length).toBeLessThan(MAX_REQUEST_XML_BYTES);
    expect(codeOf(() => parseDeleteObjects(body))).toBe('MalformedXML');
  });

  it('parses CompleteMultipartUpload parts with quoted ETags', () => {
    const body = Buffer.from(
      '<CompleteMultipartUpload><Part><ETag>"abc"</ETag><PartNumber>1</PartNumber></Part>' +
        '<Part><PartNumber>2</PartNumber><ETag>&quot;def&quot;</ETag><ChecksumCRC32>x</ChecksumCRC32></Part></CompleteMultipartUpload>',
    );
    expect(parseCompleteMultipartUpload(body)).toEqual([
      { partNumber: 1, etag: 'abc' },
      // A part's checksum is kept, to compare with the one the part arrived with.
      { partNumber: 2, etag: 'def', checksum: { algorithm: 'crc32', value: 'x' } },
    ]);
  });

  it('refuses 10,001 parts, part numbers out of range and parts without ETag', () => {
    const parts = Array.from(
      { length: 10001 },
      (_, i) => `<Part><PartNumber>${(i % 10000) + 1}</PartNumber><ETag>e</ETag></Part>`,
    );
    const many = Buffer.from(
      `<CompleteMultipartUpload>${parts.join('')}</CompleteMultipartUpload>`,
    );
    expect(codeOf(() => parseCompleteMultipartUpload(many))).toBe('MalformedXML');
    const zero = Buffer.from(
      '<CompleteMultipartUpload><Part><PartNumber>0</PartNumber><ETag>e</ETag></Part></CompleteMultipartUpload>',
    );
    expect(codeOf(() => parseCompleteMultipartUpload(zero))).toBe('MalformedXML');
    const noEtag = Buffer.from(
      '<CompleteMultipartUpload><Part><PartNumber>1</PartNumber></Part></CompleteMultipartUpload>',
    );
    expect(codeOf(() => parseCompleteMultipartUpload(noEtag))).toBe('MalformedXML');
  });
});
