import { drain, fakeRequest } from '../../../test/support/fakes/s3-fake-request';
import { signWithHeader } from '../../../test/support/clients/s3-signing';
import { openVerifiedBody } from './request-body';
import {
  SigV4Request,
  STREAMING_SIGNED,
  STREAMING_SIGNED_TRAILER,
  STREAMING_UNSIGNED_TRAILER,
} from '../auth/sigv4-parse';
import {
  DATE,
  LIMITS,
  verified,
  headersOf,
  decode,
  crc32Base64,
  signedChunks,
  signedChunkFrames,
  unsignedChunks,
  streamingRequest,
  seedOf,
  data,
  chunks,
} from './request-body.spec-support';

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
