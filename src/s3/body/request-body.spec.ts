import { createHash } from 'node:crypto';
import { crc32 } from 'node:zlib';
import { drain, fakeRequest } from '../../../test/support/fakes/s3-fake-request';
import {
  oracleSignString,
  signWithHeader,
  TEST_SECRET,
} from '../../../test/support/clients/s3-signing';
import { BodyLimits, openVerifiedBody } from './request-body';
import { S3Error } from '../s3-error';
import { checkSigV4Time, SigningKeyCache, SigV4Verified, verifySigV4 } from '../auth/sigv4';
import {
  EMPTY_SHA256,
  parseSigV4Claims,
  SigV4Request,
  STREAMING_SIGNED,
  STREAMING_SIGNED_TRAILER,
  STREAMING_UNSIGNED_TRAILER,
  UNSIGNED_PAYLOAD,
} from '../auth/sigv4-parse';

const DATE = new Date('2026-03-01T12:00:00Z');
const LIMITS = { maxBytes: 10 * 1024 * 1024, maxChunkBytes: 1024 * 1024 };

function verified(
  request: SigV4Request,
  secret = TEST_SECRET,
  now = DATE.getTime(),
): SigV4Verified {
  const claims = parseSigV4Claims(request);
  if (!claims) throw new Error('unsigned');
  checkSigV4Time(claims, now);
  return verifySigV4(request, claims, secret, new SigningKeyCache());
}

function headersOf(request: SigV4Request): Record<string, string> {
  const out: Record<string, string> = {};
  for (let i = 0; i < request.rawHeaders.length; i += 2)
    out[request.rawHeaders[i]] = request.rawHeaders[i + 1];
  return out;
}

async function decode(
  request: SigV4Request,
  body: Buffer,
  options: { pieceSize?: number; abortAfter?: number; limits?: typeof LIMITS } = {},
): Promise<{ data?: Buffer; error?: Error; code?: string }> {
  const auth = verified(request);
  const req = fakeRequest(headersOf(request), body, options);
  let opened;
  try {
    opened = openVerifiedBody(req, auth, options.limits ?? LIMITS);
  } catch (error) {
    return { error: error as Error, code: (error as S3Error).code };
  }
  const result = await drain(opened.stream);
  return { ...result, code: result.error instanceof S3Error ? result.error.code : undefined };
}

function crc32Base64(data: Buffer): string {
  const out = Buffer.alloc(4);
  out.writeUInt32BE(crc32(data));
  return out.toString('base64');
}

const sha256 = (data: Buffer | string) => createHash('sha256').update(data).digest('hex');

/** Signs aws-chunked chunks the way AWS documents it, with the SDK's HMAC as the oracle. */
async function signedChunks(seed: string, chunks: Buffer[], trailer?: string): Promise<Buffer> {
  return Buffer.concat(await signedChunkFrames(seed, chunks, trailer));
}

/** Each chunk framed with its signature (the final zero chunk and trailer last). */
async function signedChunkFrames(
  seed: string,
  chunks: Buffer[],
  trailer?: string,
): Promise<Buffer[]> {
  const scope = '20260301/us-east-1/s3/aws4_request';
  let previous = seed;
  const parts: Buffer[] = [];
  for (const chunk of [...chunks, Buffer.alloc(0)]) {
    const toSign = [
      'AWS4-HMAC-SHA256-PAYLOAD',
      '20260301T120000Z',
      scope,
      previous,
      EMPTY_SHA256,
      sha256(chunk),
    ].join('\n');
    previous = await oracleSignString(toSign, DATE);
    const header = Buffer.from(`${chunk.length.toString(16)};chunk-signature=${previous}\r\n`);
    parts.push(Buffer.concat([header, chunk, Buffer.from(chunk.length > 0 ? '\r\n' : '')]));
  }
  if (trailer === undefined) {
    parts.push(Buffer.from('\r\n'));
  } else {
    const toSign = [
      'AWS4-HMAC-SHA256-TRAILER',
      '20260301T120000Z',
      scope,
      previous,
      sha256(`${trailer}\n`),
    ].join('\n');
    const signature = await oracleSignString(toSign, DATE);
    parts.push(Buffer.from(`${trailer}\r\nx-amz-trailer-signature:${signature}\r\n\r\n`));
  }
  return parts;
}

function unsignedChunks(chunks: Buffer[], trailer: string): Buffer {
  const parts: Buffer[] = [];
  for (const chunk of chunks)
    parts.push(Buffer.from(`${chunk.length.toString(16)}\r\n`), chunk, Buffer.from('\r\n'));
  parts.push(Buffer.from(`0\r\n${trailer}\r\n\r\n`));
  return Buffer.concat(parts);
}

async function streamingRequest(
  mode: string,
  decodedLength: number,
  extra: Record<string, string> = {},
) {
  return signWithHeader({
    method: 'PUT',
    path: '/b/k',
    headers: {
      'x-amz-content-sha256': mode,
      'content-encoding': 'aws-chunked',
      'x-amz-decoded-content-length': String(decodedLength),
      ...extra,
    },
    date: DATE,
  });
}

const seedOf = (request: SigV4Request) => verified(request).seedSignature;
const data = Buffer.from('x'.repeat(70000) + 'ünïcödé tail');
const chunks = [data.subarray(0, 65536), data.subarray(65536)];

describe('STREAMING-AWS4-HMAC-SHA256-PAYLOAD', () => {
  it("decodes AWS's published chunked-upload example (seed and three chunk signatures)", async () => {
    const secret = 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY';
    const request: SigV4Request = {
      method: 'PUT',
      rawPath: '/examplebucket/chunkObject.txt',
      rawQuery: '',
      rawHeaders: [
        'Host',
        's3.amazonaws.com',
        'x-amz-date',
        '20130524T000000Z',
        'x-amz-storage-class',
        'REDUCED_REDUNDANCY',
        'Authorization',
        'AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE/20130524/us-east-1/s3/aws4_request,SignedHeaders=content-encoding;content-length;host;x-amz-content-sha256;x-amz-date;x-amz-decoded-content-length;x-amz-storage-class,Signature=4f232c4386841ef735655705268965c44a0e4690baa4adea153f7db9fa80a0a9',
        'x-amz-content-sha256',
        STREAMING_SIGNED,
        'Content-Encoding',
        'aws-chunked',
        'x-amz-decoded-content-length',
        '66560',
        'Content-Length',
        '66824',
      ],
    };
    const auth = verified(request, secret, Date.parse('2013-05-24T00:00:00Z'));
    const body = Buffer.concat([
      Buffer.from(
        '10000;chunk-signature=ad80c730a21e5b8d04586a2213dd63b9a0e99e0e2307b0ade35a65485a288648\r\n',
      ),
      Buffer.alloc(65536, 'a'),
      Buffer.from(
        '\r\n400;chunk-signature=0055627c9e194cb4542bae2aa5492e3c1575bbb81b612b7d234b86a503ef5497\r\n',
      ),
      Buffer.alloc(1024, 'a'),
      Buffer.from(
        '\r\n0;chunk-signature=b6c6ea8a5354eaf15b3cb7646744f4275b71ea724fed81ceb9323e279d449df9\r\n\r\n',
      ),
    ]);
    expect(body.length).toBe(66824);
    const opened = openVerifiedBody(fakeRequest(headersOf(request), body), auth, LIMITS);
    const result = await drain(opened.stream);
    expect(result.error).toBeUndefined();
    expect(result.data?.equals(Buffer.alloc(66560, 'a'))).toBe(true);
  });

  it('decodes chunks signed by the oracle, even delivered one byte at a time', async () => {
    const request = await streamingRequest(STREAMING_SIGNED, data.length);
    const body = await signedChunks(seedOf(request), chunks);
    const whole = await decode(request, body);
    expect(whole.data?.equals(data)).toBe(true);
    const bytewise = await decode(request, body, { pieceSize: 1 });
    expect(bytewise.error).toBeUndefined();
    expect(bytewise.data?.equals(data)).toBe(true);
  });

  it('refuses a tampered chunk, swapped chunks and a wrong seed', async () => {
    const request = await streamingRequest(STREAMING_SIGNED, data.length);
    const body = await signedChunks(seedOf(request), chunks);
    const tampered = Buffer.from(body);
    tampered[body.indexOf('xxx') + 100] = 0x79;
    expect((await decode(request, tampered)).code).toBe('SignatureDoesNotMatch');
    const frames = await signedChunkFrames(seedOf(request), chunks);
    const reordered = Buffer.concat([frames[1], frames[0], ...frames.slice(2)]);
    expect((await decode(request, Buffer.concat(frames))).data?.equals(data)).toBe(true);
    expect((await decode(request, reordered)).code).toBe('SignatureDoesNotMatch');
    const otherSeed = await signedChunks('0'.repeat(64), chunks);
    expect((await decode(request, otherSeed)).code).toBe('SignatureDoesNotMatch');
  });

  it('verifies the signed trailer of -PAYLOAD-TRAILER and its CRC32', async () => {
    const extra = { 'x-amz-trailer': 'x-amz-checksum-crc32' };
    const request = await streamingRequest(STREAMING_SIGNED_TRAILER, data.length, extra);
    const good = await signedChunks(
      seedOf(request),
      chunks,
      `x-amz-checksum-crc32:${crc32Base64(data)}`,
    );
    expect((await decode(request, good)).data?.equals(data)).toBe(true);
    const wrongCrc = await signedChunks(seedOf(request), chunks, 'x-amz-checksum-crc32:AAAAAA==');
    expect((await decode(request, wrongCrc)).code).toBe('BadDigest');
    const forgedSignature = Buffer.from(
      good
        .toString('latin1')
        .replace(/trailer-signature:[0-9a-f]{8}/, 'trailer-signature:00000000'),
      'latin1',
    );
    expect((await decode(request, forgedSignature)).code).toBe('SignatureDoesNotMatch');
  });
});

describe('STREAMING-UNSIGNED-PAYLOAD-TRAILER', () => {
  const extra = { 'x-amz-trailer': 'x-amz-checksum-crc32' };

  it('accepts a body whose CRC32 trailer matches (zlib.crc32 = S3 CRC32)', async () => {
    const request = await streamingRequest(STREAMING_UNSIGNED_TRAILER, data.length, extra);
    const result = await decode(
      request,
      unsignedChunks(chunks, `x-amz-checksum-crc32:${crc32Base64(data)}`),
      { pieceSize: 7 },
    );
    expect(result.error).toBeUndefined();
    expect(result.data?.equals(data)).toBe(true);
  });

  it('refuses a body whose CRC32 trailer does not match, or is missing', async () => {
    const request = await streamingRequest(STREAMING_UNSIGNED_TRAILER, data.length, extra);
    const bad = await decode(
      request,
      unsignedChunks(chunks, `x-amz-checksum-crc32:${crc32Base64(Buffer.from('other'))}`),
    );
    expect(bad.code).toBe('BadDigest');
    const missing = await decode(request, unsignedChunks(chunks, 'x-amz-meta-other:1'));
    expect(missing.code).toBe('InvalidRequest');
  });

  it('refuses an unsupported trailer algorithm up front', async () => {
    const request = await streamingRequest(STREAMING_UNSIGNED_TRAILER, 1, {
      'x-amz-trailer': 'x-amz-checksum-md4',
    });
    expect((await decode(request, unsignedChunks([Buffer.from('a')], ''))).code).toBe(
      'InvalidRequest',
    );
  });
});

describe('hostile aws-chunked bodies', () => {
  it('refuses a huge chunk size before reading any data', async () => {
    const request = await streamingRequest(STREAMING_UNSIGNED_TRAILER, 10);
    const result = await decode(request, Buffer.from('ffffffffffffffff\r\nabc'));
    expect(result.code).toBe('InvalidRequest');
    expect(result.error?.message).toMatch(/exceeds the limit/);
  });

  it('refuses a chunk header line that never ends, without buffering it', async () => {
    const request = await streamingRequest(STREAMING_UNSIGNED_TRAILER, 10);
    const result = await decode(request, Buffer.alloc(1024 * 1024, '1'));
    expect(result.code).toBe('InvalidRequest');
    expect(result.error?.message).toMatch(/exceeds 4096 bytes/);
  });

  it('refuses an unterminated body, a truncated chunk and a client that disconnects', async () => {
    const request = await streamingRequest(STREAMING_UNSIGNED_TRAILER, 10);
    expect((await decode(request, Buffer.from('a\r\n0123456789\r\n'))).code).toBe('IncompleteBody');
    expect((await decode(request, Buffer.from('a\r\n01234'))).code).toBe('IncompleteBody');
    const full = unsignedChunks([Buffer.from('0123456789')], '');
    expect((await decode(request, full, { abortAfter: 8 })).code).toBe('IncompleteBody');
  });

  it('refuses more data than x-amz-decoded-content-length and a missing CRLF after data', async () => {
    const request = await streamingRequest(STREAMING_UNSIGNED_TRAILER, 4);
    expect((await decode(request, unsignedChunks([Buffer.from('0123456789')], ''))).code).toBe(
      'InvalidRequest',
    );
    expect((await decode(request, Buffer.from('4\r\n0123XX0\r\n\r\n'))).code).toBe(
      'InvalidRequest',
    );
  });

  it('refuses an oversized declared length before reading, and requires it', async () => {
    const request = await streamingRequest(STREAMING_UNSIGNED_TRAILER, LIMITS.maxBytes + 1);
    expect((await decode(request, Buffer.alloc(0))).code).toBe('EntityTooLarge');
    const undeclared = await signWithHeader({
      method: 'PUT',
      path: '/b/k',
      headers: { 'x-amz-content-sha256': STREAMING_UNSIGNED_TRAILER },
      date: DATE,
    });
    expect((await decode(undeclared, Buffer.from('0\r\n\r\n'))).code).toBe('MissingContentLength');
  });
});

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
