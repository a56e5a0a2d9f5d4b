import { createHash } from 'node:crypto';
import { drain, fakeRequest } from '../../../test/support/fakes/s3-fake-request';
import { signWithHeader } from '../../../test/support/clients/s3-signing';
import { BodyLimits, openVerifiedBody } from './request-body';
import { S3Error } from '../s3-error';
import { UNSIGNED_PAYLOAD } from '../auth/sigv4-parse';
import { DATE, LIMITS, verified, headersOf, decode, sha256 } from './request-body.spec-support';

describe('single-chunk payload checks', () => {
  const body = Buffer.from('<html>hello</html>');
  const md5 = createHash('md5').update(body).digest('base64');

  async function put(headers: Record<string, string>, payload = body, limits = LIMITS) {
    const request = await signWithHeader({
      method: 'PUT',
      path: '/b/k',
      headers: { 'content-length': String(payload.length), ...headers },
      date: DATE,
    });
    return decode(request, payload, { limits });
  }

  it('accepts a body matching its signed SHA-256 and Content-MD5', async () => {
    const result = await put({ 'x-amz-content-sha256': sha256(body), 'content-md5': md5 });
    expect(result.data?.equals(body)).toBe(true);
  });

  it('refuses a body that does not match its signed SHA-256', async () => {
    const result = await put({ 'x-amz-content-sha256': sha256('something else') });
    expect(result.code).toBe('XAmzContentSHA256Mismatch');
  });

  it('refuses a wrong or malformed Content-MD5', async () => {
    const other = createHash('md5').update('x').digest('base64');
    expect(
      (await put({ 'x-amz-content-sha256': UNSIGNED_PAYLOAD, 'content-md5': other })).code,
    ).toBe('BadDigest');
    expect(
      (await put({ 'x-amz-content-sha256': UNSIGNED_PAYLOAD, 'content-md5': 'nope' })).code,
    ).toBe('InvalidDigest');
  });

  it('checks an x-amz-checksum-* header (crc32c, sha1)', async () => {
    const sha1 = createHash('sha1').update(body).digest('base64');
    expect(
      (
        await put({ 'x-amz-content-sha256': UNSIGNED_PAYLOAD, 'x-amz-checksum-sha1': sha1 })
      ).data?.equals(body),
    ).toBe(true);
    expect(
      (await put({ 'x-amz-content-sha256': UNSIGNED_PAYLOAD, 'x-amz-checksum-crc32c': 'AAAAAA==' }))
        .code,
    ).toBe('BadDigest');
  });

  it('refuses a body shorter than declared and one larger than the limit', async () => {
    const request = await signWithHeader({
      method: 'PUT',
      path: '/b/k',
      headers: { 'x-amz-content-sha256': UNSIGNED_PAYLOAD, 'content-length': '100' },
      date: DATE,
    });
    expect((await decode(request, body)).code).toBe('IncompleteBody');
    const small = { ...LIMITS, maxBytes: 5 };
    expect((await put({ 'x-amz-content-sha256': UNSIGNED_PAYLOAD }, body, small)).code).toBe(
      'EntityTooLarge',
    );
  });
});

describe('objects and parts must declare their length', () => {
  const body = Buffer.from('0123456789');
  const OBJECT_LIMITS = { ...LIMITS, requireLength: true };

  async function put(
    headers: Record<string, string>,
    limits: BodyLimits,
    payload = body,
  ): Promise<{ size: number | undefined; data?: Buffer; error?: Error }> {
    const request = await signWithHeader({
      method: 'PUT',
      path: '/b/k',
      headers: { 'x-amz-content-sha256': UNSIGNED_PAYLOAD, ...headers },
      date: DATE,
    });
    const auth = verified(request);
    const opened = openVerifiedBody(fakeRequest(headersOf(request), payload), auth, limits);
    return { size: opened.size, ...(await drain(opened.stream)) };
  }

  it('refuses a chunked Transfer-Encoding without Content-Length with 411 MissingContentLength', async () => {
    await expect(put({ 'transfer-encoding': 'chunked' }, OBJECT_LIMITS)).rejects.toMatchObject({
      code: 'MissingContentLength',
      status: 411,
    });
  });

  it('reads a request with neither header as the empty body it is, and keeps other bodies as they were', async () => {
    expect(await put({}, OBJECT_LIMITS, Buffer.alloc(0))).toEqual({
      size: 0,
      data: Buffer.alloc(0),
    });
    expect(await put({ 'content-length': '10' }, OBJECT_LIMITS)).toEqual({ size: 10, data: body });
    // Request documents (XML) may still come chunked: they are capped by their own limit.
    expect((await put({ 'transfer-encoding': 'chunked' }, LIMITS)).size).toBeUndefined();
  });

  it("takes a PutObject's chunked body without a length up to maxUnsizedBytes (s3-tests' test_object_write_with_chunked_transfer_encoding)", async () => {
    const unsized = { ...OBJECT_LIMITS, maxUnsizedBytes: 10 };
    expect(await put({ 'transfer-encoding': 'chunked' }, unsized)).toEqual({
      size: undefined,
      data: body,
    });
    const over = await put({ 'transfer-encoding': 'chunked' }, { ...unsized, maxUnsizedBytes: 9 });
    expect(over.data).toBeUndefined();
    expect((over.error as S3Error).code).toBe('EntityTooLarge');
  });

  it('leaves an x-amz-checksum-* header that names the object, not the body, to its caller (CompleteMultipartUpload)', async () => {
    const sent = { 'content-length': '10', 'x-amz-checksum-sha256': 'bad' };
    expect((await put(sent, { ...LIMITS, checksumHeaderIsObjects: true })).data).toEqual(body);
    const checked = await put(sent, LIMITS);
    expect((checked.error as S3Error).code).toBe('BadDigest');
  });
});
