import { newChecksum } from './body/checksums';
import { parseS3Address } from './s3-address';
import { codeOf } from './s3-error-code.spec-support';
import { refuseCorsPreflight, resolveOperation } from './s3-operation';
import { awsUriEncode, percentDecodeUtf8 } from './uri-encoding';

describe('parseS3Address', () => {
  it('reads path-style bucket and percent-decoded key, keeping + as a plus', () => {
    const a = parseS3Address(
      '/bucket/c%2B%2B/a%20b+c%C3%BC.txt?uploadId=x%2By&partNumber=2',
      '127.0.0.1:8081',
      undefined,
    );
    expect(a.bucket).toBe('bucket');
    expect(a.key).toBe('c++/a b+cü.txt');
    expect(a.query.get('uploadId')).toBe('x+y');
    expect(a.rawPath).toBe('/bucket/c%2B%2B/a%20b+c%C3%BC.txt');
  });

  it('treats /bucket and /bucket/ as the bucket, and / as the service', () => {
    expect(parseS3Address('/bucket/?list-type=2', undefined, undefined).key).toBeUndefined();
    expect(parseS3Address('/bucket', undefined, undefined).bucket).toBe('bucket');
    expect(parseS3Address('/', undefined, undefined).bucket).toBeUndefined();
  });

  it('reads the bucket from the host in virtual-hosted style', () => {
    const a = parseS3Address('/docs/index.html', 'mylabel.s3.example.test:8081', 's3.example.test');
    expect(a.bucket).toBe('mylabel');
    expect(a.key).toBe('docs/index.html');
    expect(parseS3Address('/bkt/k', 's3.example.test', 's3.example.test').bucket).toBe('bkt');
  });

  it('refuses malformed escapes, invalid UTF-8, keys over 1024 bytes and bad bucket names', () => {
    expect(codeOf(() => parseS3Address('/bkt/%ZZ', undefined, undefined))).toBe('InvalidURI');
    expect(codeOf(() => parseS3Address('/bkt/%C3%28', undefined, undefined))).toBe('InvalidURI');
    // s3-tests' test_object_read_unreadable: the key '\xae\x8a-' (U+008A is a C1 control)
    expect(codeOf(() => parseS3Address('/bkt/%C2%AE%C2%8A-', undefined, undefined))).toBe(
      'InvalidURI',
    );
    expect(codeOf(() => parseS3Address('/bkt/a%0Ab', undefined, undefined))).toBe('InvalidURI');
    expect(parseS3Address('/bkt/%C2%AE-', undefined, undefined).key).toBe('\u00ae-');
    expect(codeOf(() => parseS3Address(`/bkt/${'é'.repeat(513)}`, undefined, undefined))).toBe(
      'KeyTooLongError',
    );
    expect(codeOf(() => parseS3Address('/Bad_Bucket/k', undefined, undefined))).toBe(
      'InvalidBucketName',
    );
    // A label with a suffix (s3-tests' test_100_continue_error_retry): a bucket that does not
    // exist, not an invalid name; past 255 characters it is invalid.
    expect(
      parseS3Address(`/${'a'.repeat(52)}-but-doesnt-exist/k`, undefined, undefined).bucket,
    ).toBe(`${'a'.repeat(52)}-but-doesnt-exist`);
    expect(codeOf(() => parseS3Address(`/${'a'.repeat(256)}/k`, undefined, undefined))).toBe(
      'InvalidBucketName',
    );
    expect(codeOf(() => parseS3Address('http://x/bkt', undefined, undefined))).toBe('InvalidURI');
  });
});

describe('resolveOperation', () => {
  const op = (method: string, url: string, copy?: string) =>
    resolveOperation(method, parseS3Address(url, undefined, undefined), copy);

  it.each([
    ['GET', '/', undefined, 'ListBuckets'],
    ['GET', '/bkt?list-type=2', undefined, 'ListObjectsV2'],
    ['GET', '/bkt', undefined, 'ListObjects'],
    ['GET', '/bkt?location', undefined, 'GetBucketLocation'],
    ['GET', '/bkt?uploads', undefined, 'ListMultipartUploads'],
    ['POST', '/bkt?delete', undefined, 'DeleteObjects'],
    ['PUT', '/bkt', undefined, 'CreateBucket'],
    ['HEAD', '/bkt', undefined, 'HeadBucket'],
    ['PUT', '/bkt/k', undefined, 'PutObject'],
    ['PUT', '/bkt/k', 'bkt/j', 'CopyObject'],
    ['PUT', '/bkt/k?partNumber=1&uploadId=u', undefined, 'UploadPart'],
    ['POST', '/bkt/k?uploads', undefined, 'CreateMultipartUpload'],
    ['POST', '/bkt/k?uploadId=u', undefined, 'CompleteMultipartUpload'],
    ['DELETE', '/bkt/k?uploadId=u', undefined, 'AbortMultipartUpload'],
    ['GET', '/bkt/k?uploadId=u', undefined, 'ListParts'],
    ['DELETE', '/bkt/k', undefined, 'DeleteObject'],
    ['HEAD', '/bkt/k', undefined, 'HeadObject'],
    ['GET', '/bkt/k', undefined, 'GetObject'],
  ] as const)('routes %s %s (copy source %s) as S3 does: %s', (method, url, copy, operation) => {
    expect(op(method, url, copy)).toBe(operation);
  });

  it('answers unsupported sub-resources 501 and other methods 405', () => {
    expect(codeOf(() => op('GET', '/bkt?acl'))).toBe('NotImplemented');
    expect(codeOf(() => op('PUT', '/bkt/k?tagging'))).toBe('NotImplemented');
    expect(op('GET', '/bkt/k?partNumber=1')).toBe('GetObject');
    expect(op('GET', '/bkt/k?attributes')).toBe('GetObjectAttributes');
    expect(codeOf(() => op('HEAD', '/bkt/k?attributes'))).toBe('NotImplemented');
    // A CORS preflight (s3-tests' test_object_raw_get_x_amz_expires_not_expired): 400 without
    // Origin, 403 with one, never 405.
    expect(codeOf(() => refuseCorsPreflight('OPTIONS', undefined))).toBe('BadRequest');
    expect(codeOf(() => refuseCorsPreflight('OPTIONS', 'https://a.example'))).toBe(
      'AccessForbidden',
    );
    expect(codeOf(() => refuseCorsPreflight('GET', undefined))).toBe('no error');
    expect(op('PUT', '/bkt/k?partNumber=1&uploadId=u', 'bkt/j')).toBe('UploadPartCopy');
    expect(codeOf(() => op('DELETE', '/bkt'))).toBe('MethodNotAllowed');
    expect(codeOf(() => op('PUT', '/'))).toBe('MethodNotAllowed');
  });
});

describe('checksums and encoding', () => {
  it.each([
    ['crc32', 'cbf43926'],
    ['crc32c', 'e3069283'],
    ['crc64nvme', 'ae8b14860a799888'],
    ['sha1', 'f7c3bc1d808e04732adf679965ccc34ca7ae3441'],
  ] as const)('%s of "123456789" is the standard check value', (algorithm, hex) => {
    const checksum = newChecksum(algorithm);
    checksum.update(Buffer.from('1234'));
    checksum.update(Buffer.from('56789'));
    expect(Buffer.from(checksum.digestBase64(), 'base64').toString('hex')).toBe(hex);
  });

  it("encodes everything but A-Z a-z 0-9 - _ . ~, including !'()*", () => {
    expect(awsUriEncode("a b+c/d!'()*~é")).toBe('a%20b%2Bc%2Fd%21%27%28%29%2A~%C3%A9');
    expect(awsUriEncode('a/b c', true)).toBe('a/b%20c');
    expect(percentDecodeUtf8('a%2Bb+c')).toBe('a+b+c');
    expect(percentDecodeUtf8('%')).toBeNull();
  });
});
