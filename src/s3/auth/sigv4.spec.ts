import {
  encodeKeyPath,
  presign,
  signWithHeader,
  TEST_ACCESS_KEY_ID,
  TEST_SECRET,
} from '../../../test/support/clients/s3-signing';
import { S3Error } from '../s3-error';
import { codeOf } from '../s3-error-code.spec-support';
import { checkSigV4Time, SigningKeyCache, SigV4Verified, verifySigV4 } from './sigv4';
import { EMPTY_SHA256, parseSigV4Claims, SigV4Request, UNSIGNED_PAYLOAD } from './sigv4-parse';

const DATE = new Date('2026-03-01T12:00:00Z');
const NOW = DATE.getTime();

function verify(request: SigV4Request, secret = TEST_SECRET, now = NOW): SigV4Verified {
  const claims = parseSigV4Claims(request);
  if (!claims) throw new Error('no signature');
  checkSigV4Time(claims, now);
  return verifySigV4(request, claims, secret, new SigningKeyCache());
}

function withHeader(request: SigV4Request, name: string, value: string): SigV4Request {
  const raw = [...request.rawHeaders];
  const at = raw.findIndex((h, i) => i % 2 === 0 && h.toLowerCase() === name);
  if (at >= 0) raw[at + 1] = value;
  else raw.push(name, value);
  return { ...request, rawHeaders: raw };
}

const getHeaders = { 'x-amz-content-sha256': EMPTY_SHA256 };

describe('SigV4 verification against the SDK signer', () => {
  it('accepts an Authorization-header request signed by the SDK and exposes the seed signature', async () => {
    const request = await signWithHeader({
      method: 'GET',
      path: '/site-bucket',
      query: { 'list-type': '2', prefix: 'docs/', 'encoding-type': 'url' },
      headers: getHeaders,
      date: DATE,
    });
    const verified = verify(request);
    expect(verified.claims.accessKeyId).toBe(TEST_ACCESS_KEY_ID);
    expect(verified.claims.payloadHash).toBe(EMPTY_SHA256);
    expect(verified.seedSignature).toMatch(/^[0-9a-f]{64}$/);
    expect(verified.scopeString).toBe('20260301/us-east-1/s3/aws4_request');
  });

  it('refuses the same request checked with another secret', async () => {
    const request = await signWithHeader({
      method: 'GET',
      path: '/b/k',
      headers: getHeaders,
      date: DATE,
    });
    expect(codeOf(() => verify(request, 'not-the-secret'))).toBe('SignatureDoesNotMatch');
  });

  it('refuses a tampered header, query, path or method', async () => {
    const request = await signWithHeader({
      method: 'GET',
      path: '/b/index.html',
      query: { 'x-id': 'GetObject' },
      headers: { ...getHeaders, range: 'bytes=0-9' },
      date: DATE,
    });
    expect(verify(request).claims.signedHeaders).toContain('range');
    expect(codeOf(() => verify(withHeader(request, 'range', 'bytes=0-99')))).toBe(
      'SignatureDoesNotMatch',
    );
    expect(codeOf(() => verify({ ...request, rawQuery: 'x-id=PutObject' }))).toBe(
      'SignatureDoesNotMatch',
    );
    expect(codeOf(() => verify({ ...request, rawPath: '/b/other.html' }))).toBe(
      'SignatureDoesNotMatch',
    );
    expect(codeOf(() => verify({ ...request, method: 'DELETE' }))).toBe('SignatureDoesNotMatch');
  });

  it('accepts header values with extra spaces, as canonicalisation trims and collapses them', async () => {
    const request = await signWithHeader({
      method: 'PUT',
      path: '/b/k',
      headers: { 'x-amz-content-sha256': UNSIGNED_PAYLOAD, 'x-amz-meta-note': 'a b c' },
      date: DATE,
    });
    expect(() => verify(withHeader(request, 'x-amz-meta-note', '  a   b  c '))).not.toThrow();
  });

  it.each([
    ['a key with spaces.html'],
    ['c++/x+y.txt'],
    ['ünïcödé/ç 日本.txt'],
    ["quote's (paren) *star*!.txt"],
    ['tilde~and-dash_under.dot'],
    ['emoji 😀/%percent%.txt'],
  ])('verifies the S3 path encoding of %s', async (key) => {
    const request = await signWithHeader({
      method: 'PUT',
      path: encodeKeyPath('b', key),
      headers: { 'x-amz-content-sha256': UNSIGNED_PAYLOAD },
      date: DATE,
    });
    expect(() => verify(request)).not.toThrow();
    // A `+` in the path is a plus: the same key with a space instead must not verify.
    if (key.includes('+')) {
      const spaced = { ...request, rawPath: encodeKeyPath('b', key.replace(/\+/g, ' ')) };
      expect(codeOf(() => verify(spaced))).toBe('SignatureDoesNotMatch');
    }
  });

  it('accepts a path escaped differently from the canonical form (e.g. %7E for ~)', async () => {
    const request = await signWithHeader({
      method: 'GET',
      path: '/b/a%7Eb',
      headers: getHeaders,
      date: DATE,
    });
    expect(() => verify(request)).not.toThrow();
  });

  it('refuses a request more than 15 minutes away from the server clock, both ways', async () => {
    const request = await signWithHeader({
      method: 'GET',
      path: '/b',
      headers: getHeaders,
      date: DATE,
    });
    expect(() => verify(request, TEST_SECRET, NOW + 14 * 60_000)).not.toThrow();
    expect(codeOf(() => verify(request, TEST_SECRET, NOW + 16 * 60_000))).toBe(
      'RequestTimeTooSkewed',
    );
    expect(codeOf(() => verify(request, TEST_SECRET, NOW - 16 * 60_000))).toBe(
      'RequestTimeTooSkewed',
    );
  });

  it('refuses x-amz-* headers that were not signed', async () => {
    const request = await signWithHeader({
      method: 'PUT',
      path: '/b/k',
      headers: getHeaders,
      date: DATE,
    });
    const added = withHeader(request, 'x-amz-copy-source', 'b/secret');
    let error: unknown;
    try {
      verify(added);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(S3Error);
    expect((error as S3Error).code).toBe('AccessDenied');
    expect((error as S3Error).details.HeadersNotSigned).toBe('x-amz-copy-source');
  });

  it('treats a missing request as anonymous and malformed headers as malformed', () => {
    expect(
      parseSigV4Claims({ method: 'GET', rawPath: '/', rawQuery: '', rawHeaders: [] }),
    ).toBeNull();
    const bad = (authorization: string) =>
      codeOf(() =>
        parseSigV4Claims({
          method: 'GET',
          rawPath: '/',
          rawQuery: '',
          rawHeaders: ['Authorization', authorization, 'x-amz-date', '20260301T120000Z'],
        }),
      );
    expect(bad('AWS AKID:signature')).toBe('InvalidRequest');
    expect(bad('AWS4-HMAC-SHA256 Credential=AKID/20260301/us-east-1/s3/aws4_request')).toBe(
      'AuthorizationHeaderMalformed',
    );
    expect(
      bad(
        `AWS4-HMAC-SHA256 Credential=AKID/20260301/us-east-1/iam/aws4_request, SignedHeaders=host, Signature=${'a'.repeat(64)}`,
      ),
    ).toBe('AuthorizationHeaderMalformed');
    expect(
      bad(
        `AWS4-HMAC-SHA256 Credential=AKID/20260302/us-east-1/s3/aws4_request, SignedHeaders=host, Signature=${'a'.repeat(64)}`,
      ),
    ).toBe('AuthorizationHeaderMalformed');
    expect(
      bad(
        `AWS4-HMAC-SHA256 Credential=AKID/20260301/us-east-1/s3/aws4_request, SignedHeaders=x-amz-date, Signature=${'a'.repeat(64)}`,
      ),
    ).toBe('AuthorizationHeaderMalformed');
  });
});

describe('presigned URLs', () => {
  it('accepts a URL presigned by the SDK within its lifetime and refuses it after', async () => {
    const request = await presign(
      { method: 'GET', path: encodeKeyPath('b', 'docs/a b+c.html'), date: DATE },
      600,
    );
    const verified = verify(request, TEST_SECRET, NOW + 599_000);
    expect(verified.claims.kind).toBe('presigned');
    expect(verified.claims.payloadHash).toBe(UNSIGNED_PAYLOAD);
    expect(codeOf(() => verify(request, TEST_SECRET, NOW + 601_000))).toBe('AccessDenied');
    expect(codeOf(() => verify(request, TEST_SECRET, NOW - 16 * 60_000))).toBe('AccessDenied');
  });

  it('refuses a presigned URL with a changed query, path or signature', async () => {
    const request = await presign(
      { method: 'GET', path: '/b/k', query: { 'response-content-type': 'text/plain' }, date: DATE },
      600,
    );
    expect(() => verify(request)).not.toThrow();
    const swapped = request.rawQuery.replace('text%2Fplain', 'text%2Fhtml');
    expect(swapped).not.toBe(request.rawQuery);
    expect(codeOf(() => verify({ ...request, rawQuery: swapped }))).toBe('SignatureDoesNotMatch');
    expect(codeOf(() => verify({ ...request, rawPath: '/b/j' }))).toBe('SignatureDoesNotMatch');
    const expires = request.rawQuery.replace('X-Amz-Expires=600', 'X-Amz-Expires=6000');
    expect(codeOf(() => verify({ ...request, rawQuery: expires }))).toBe('SignatureDoesNotMatch');
    expect(codeOf(() => verify(request, 'wrong'))).toBe('SignatureDoesNotMatch');
  });

  it('answers a URL presigned for 0 seconds as expired (403 AccessDenied, not 400)', async () => {
    const request = await presign({ method: 'GET', path: '/b/k', date: DATE }, 600);
    const zero = request.rawQuery.replace('X-Amz-Expires=600', 'X-Amz-Expires=0');
    expect(codeOf(() => verify({ ...request, rawQuery: zero }, TEST_SECRET, NOW))).toBe(
      'AccessDenied',
    );
  });

  it('refuses expiry beyond seven days or below zero as expired (403), and mixed auth mechanisms', async () => {
    const request = await presign({ method: 'GET', path: '/b/k', date: DATE }, 600);
    expect(() => verify(request)).not.toThrow();
    // s3-tests' test_object_raw_get_x_amz_expires_out_max_range, _out_positive_range,
    // test_object_raw_put_authenticated_expired
    for (const value of ['604801', '-7', '-1000']) {
      const rawQuery = request.rawQuery.replace('X-Amz-Expires=600', `X-Amz-Expires=${value}`);
      expect(codeOf(() => verify({ ...request, rawQuery }))).toBe('AccessDenied');
    }
    const junk = request.rawQuery.replace('X-Amz-Expires=600', 'X-Amz-Expires=1e3');
    expect(codeOf(() => verify({ ...request, rawQuery: junk }))).toBe(
      'AuthorizationQueryParametersError',
    );
    expect(codeOf(() => verify(withHeader(request, 'authorization', 'AWS4-HMAC-SHA256 x')))).toBe(
      'InvalidArgument',
    );
  });
});

describe("AWS's published examples (Amazon S3 API reference, SigV4)", () => {
  const secret = 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY';
  const exampleNow = Date.parse('2013-05-24T00:00:00Z');

  it('GET Object with a Range header', () => {
    const request: SigV4Request = {
      method: 'GET',
      rawPath: '/test.txt',
      rawQuery: '',
      rawHeaders: [
        'Host',
        'examplebucket.s3.amazonaws.com',
        'Authorization',
        'AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE/20130524/us-east-1/s3/aws4_request,SignedHeaders=host;range;x-amz-content-sha256;x-amz-date,Signature=f0e8bdb87c964420e857bd35b5d6ed310bd44f0170aba48dd91039c6036bdb41',
        'Range',
        'bytes=0-9',
        'x-amz-content-sha256',
        EMPTY_SHA256,
        'x-amz-date',
        '20130524T000000Z',
      ],
    };
    expect(() => verify(request, secret, exampleNow)).not.toThrow();
  });

  it('a presigned GET', () => {
    const request: SigV4Request = {
      method: 'GET',
      rawPath: '/test.txt',
      rawQuery:
        'X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Credential=AKIAIOSFODNN7EXAMPLE%2F20130524%2Fus-east-1%2Fs3%2Faws4_request&X-Amz-Date=20130524T000000Z&X-Amz-Expires=86400&X-Amz-SignedHeaders=host&X-Amz-Signature=aeeed9bbccd4d02ee5c0109b86d86835f995330da4c265957d157751f604d404',
      rawHeaders: ['Host', 'examplebucket.s3.amazonaws.com'],
    };
    expect(() => verify(request, secret, exampleNow + 3600_000)).not.toThrow();
  });
});

describe('header bytes beyond ASCII', () => {
  it('verifies a UTF-8 header value as the bytes Node received (latin1-decoded)', async () => {
    const signed = await signWithHeader({
      method: 'PUT',
      path: '/b/k',
      headers: { 'x-amz-content-sha256': UNSIGNED_PAYLOAD, 'x-amz-meta-title': 'ünï 日本' },
      date: DATE,
    });
    // What node:http hands the server for the UTF-8 bytes the client sent.
    const received = withHeader(
      signed,
      'x-amz-meta-title',
      Buffer.from('ünï 日本', 'utf8').toString('latin1'),
    );
    expect(() => verify(received)).not.toThrow();
  });
});
