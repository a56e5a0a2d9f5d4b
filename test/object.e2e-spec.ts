import { randomBytes } from 'node:crypto';
import { Keypair } from '@solana/web3.js';
import { SegmentingHasher } from '../src/tracks/track-layout';
import { versionedTrackAddress } from '../src/object/versioned-track';
import { commitmentToHex } from '../src/tracks/commitment';
import { SEGMENT_BYTES, ObjectFixture, startObjectFixture } from './support/labs/object-fixture';
import { parseByteranges, rawRequest } from './support/clients/object-http';
import { WrittenTrack } from './support/clients/upload-client';

/**
 * GET|HEAD /object/{track} over HTTP against the built gateway: headers, statuses, ranges at and
 * across segment boundaries of a streamed object (256 KiB segments), conditionals, refusals.
 */
const S = SEGMENT_BYTES;
const small = randomBytes(100_000);
const streamed = randomBytes(4 * S + 12_345); // five segments, the last one short
let fx: ObjectFixture;
let smallTrack: WrittenTrack;
let streamedTrack: WrittenTrack;
let emptyTrack: WrittenTrack;

beforeAll(async () => {
  fx = await startObjectFixture({ env: { TAPE__STORAGE__SEGMENT_BYTES: String(S) } });
  smallTrack = await fx.client.store(fx.wallet, fx.tape, small, 'text/plain; charset=utf-8', S);
  streamedTrack = await fx.client.store(fx.wallet, fx.tape, streamed, 'video/mp4', S);
  emptyTrack = await fx.client.store(fx.wallet, fx.tape, Buffer.alloc(0), 'text/plain', S);
}, 120_000);

afterAll(async () => {
  await fx?.stop();
});

const etagOf = (track: WrittenTrack) => {
  const { layout } = track;
  return `"${commitmentToHex(layout.kind === 'blob' ? layout.digest.commitment : layout.manifestDigest.commitment)}"`;
};
const get = (track: WrittenTrack | string, headers: Record<string, string> = {}, method = 'GET') =>
  rawRequest(fx.objectUrl(typeof track === 'string' ? track : track.address), { method, headers });

describe('GET /object/{track}', () => {
  it('answers 200 with the whole payload and the route headers', async () => {
    const res = await get(smallTrack);
    expect(res.status).toBe(200);
    expect(res.body.equals(small)).toBe(true);
    expect(res.headers['content-type']).toBe('text/plain; charset=utf-8');
    expect(res.headers['content-length']).toBe(String(small.length));
    expect(res.headers.etag).toBe(etagOf(smallTrack));
    expect(res.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    expect(res.headers['accept-ranges']).toBe('bytes');
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    expect(res.headers['set-cookie']).toBeUndefined();
  });

  it('follows a streamed object through its manifest transparently', async () => {
    expect(streamedTrack.layout.kind).toBe('manifest');
    const res = await get(streamedTrack);
    expect(res.status).toBe(200);
    expect(res.complete).toBe(true);
    expect(res.body.equals(streamed)).toBe(true);
    expect(res.headers['content-type']).toBe('video/mp4');
    expect(res.headers['content-length']).toBe(String(streamed.length));
    expect(res.headers.etag).toBe(etagOf(streamedTrack));
  });

  it('serves an empty object', async () => {
    const res = await get(emptyTrack);
    expect([res.status, res.headers['content-length'], res.body.length]).toEqual([200, '0', 0]);
    const ranged = await get(emptyTrack, { range: 'bytes=0-' });
    expect([ranged.status, ranged.headers['content-range']]).toEqual([416, 'bytes */0']);
  });

  it('HEAD answers the same headers without a body', async () => {
    const [full, head] = [await get(streamedTrack), await get(streamedTrack, {}, 'HEAD')];
    expect(head.status).toBe(200);
    expect(head.body.length).toBe(0);
    for (const name of [
      'content-type',
      'content-length',
      'etag',
      'cache-control',
      'accept-ranges',
      'x-content-type-options',
    ]) {
      expect([name, head.headers[name]]).toEqual([name, full.headers[name]]);
    }
    const ranged = await get(streamedTrack, { range: 'bytes=10-19' }, 'HEAD');
    expect([
      ranged.status,
      ranged.headers['content-range'],
      ranged.headers['content-length'],
    ]).toEqual([206, `bytes 10-19/${streamed.length}`, '10']);
  });

  it('ignores a query string', async () => {
    const res = await rawRequest(`${fx.objectUrl(smallTrack.address)}?download=1&x=%00`);
    expect([res.status, res.body.equals(small)]).toEqual([200, true]);
  });
});

describe('ranges', () => {
  const size = streamed.length;
  it.each([
    ['bytes=0-0', 0, 0],
    [`bytes=${S - 1}-${S - 1}`, S - 1, S - 1], // last byte of segment 0
    [`bytes=${S}-${S}`, S, S], // first byte of segment 1
    [`bytes=${S - 1}-${S}`, S - 1, S], // across one boundary
    [`bytes=0-${S - 1}`, 0, S - 1], // exactly segment 0
    [`bytes=${S - 100}-${3 * S + 100}`, S - 100, 3 * S + 100], // across three boundaries
    [`bytes=${4 * S}-`, 4 * S, size - 1], // the short last segment
    [`bytes=${S + 65_535}-${S + 65_536}`, S + 65_535, S + 65_536], // across a chunk boundary
    ['bytes=-1', size - 1, size - 1],
    [`bytes=-${S + 1}`, size - S - 1, size - 1],
    [`bytes=-${size + 10}`, 0, size - 1],
    [`bytes=1000-${size * 2}`, 1000, size - 1],
  ])('%s on a streamed object: 206 with exactly those bytes', async (range, start, end) => {
    const res = await get(streamedTrack, { range });
    expect(res.status).toBe(206);
    expect(res.headers['content-range']).toBe(`bytes ${start}-${end}/${size}`);
    expect(res.headers['content-length']).toBe(String(end - start + 1));
    expect(res.headers.etag).toBe(etagOf(streamedTrack));
    expect(res.body.equals(streamed.subarray(start, end + 1))).toBe(true);
  });

  it.each([
    ['bytes=10-20', 10, 20],
    ['bytes=99990-', 99_990, 99_999],
    ['bytes=-5', 99_995, 99_999],
  ])('%s on a small object: 206 with exactly those bytes', async (range, start, end) => {
    const res = await get(smallTrack, { range });
    expect([res.status, res.headers['content-range']]).toEqual([
      206,
      `bytes ${start}-${end}/100000`,
    ]);
    expect(res.body.equals(small.subarray(start, end + 1))).toBe(true);
  });

  it.each([
    `bytes=${streamed.length}-`,
    `bytes=${streamed.length + 5}-${streamed.length + 9}`,
    'bytes=-0',
  ])('unsatisfiable %s: 416 with Content-Range bytes */size and the error body', async (range) => {
    const res = await get(streamedTrack, { range });
    expect(res.status).toBe(416);
    expect(res.headers['content-range']).toBe(`bytes */${streamed.length}`);
    expect(res.headers['cache-control']).toBe('no-store');
    expect(JSON.parse(res.body.toString()).error.code).toBe('range_not_satisfiable');
  });

  it.each([
    'bytes=5-3',
    'items=0-1',
    'bytes=abc',
    'bytes=',
    'bytes=-',
    'bytes = 0-1',
    `bytes=${'0-1,'.repeat(40)}0-1`,
  ])('malformed %s: the whole object with 200', async (range) => {
    const res = await get(smallTrack, { range });
    expect(res.status).toBe(200);
    expect(res.body.equals(small)).toBe(true);
  });

  it('several ranges: multipart/byteranges, parts in the order asked, across segments', async () => {
    const wanted = [
      [3 * S - 5, 3 * S + 5],
      [0, 9],
      [S - 1, S],
    ];
    const res = await get(streamedTrack, {
      range: `bytes=${wanted.map(([a, b]) => `${a}-${b}`).join(',')}`,
    });
    expect(res.status).toBe(206);
    expect(res.headers['content-type']).toMatch(/^multipart\/byteranges; boundary=/);
    expect(Number(res.headers['content-length'])).toBe(res.body.length);
    const parts = parseByteranges(res.body, res.headers['content-type']!);
    expect(parts.map((p) => p.contentRange)).toEqual(
      wanted.map(([a, b]) => `bytes ${a}-${b}/${streamed.length}`),
    );
    parts.forEach((part, i) => {
      expect(part.contentType).toBe('video/mp4');
      expect(part.bytes.equals(streamed.subarray(wanted[i][0], wanted[i][1] + 1))).toBe(true);
    });
  });

  it('overlapping ranges merge into one', async () => {
    const res = await get(smallTrack, { range: 'bytes=0-10,5-20' });
    expect([res.status, res.headers['content-range']]).toEqual([206, 'bytes 0-20/100000']);
  });

  it('many concurrent range readers each get their exact bytes', async () => {
    const ranges = Array.from({ length: 60 }, () => {
      const start = Math.floor(Math.random() * streamed.length);
      const end = Math.min(streamed.length - 1, start + Math.floor(Math.random() * 2 * S));
      return [start, end];
    });
    const results = await Promise.all(
      ranges.map(([a, b]) => get(streamedTrack, { range: `bytes=${a}-${b}` })),
    );
    results.forEach((res, i) => {
      const [a, b] = ranges[i];
      expect(res.status).toBe(206);
      expect(res.body.equals(streamed.subarray(a, b + 1))).toBe(true);
    });
  });
});

describe('conditional requests', () => {
  it('If-None-Match with the ETag (strong, weak, in a list, or *) answers 304 with no body', async () => {
    const etag = etagOf(streamedTrack);
    for (const value of [etag, `W/${etag}`, `"nope", ${etag}`, '*']) {
      const res = await get(streamedTrack, { 'if-none-match': value });
      expect([value, res.status, res.body.length]).toEqual([value, 304, 0]);
      expect(res.headers.etag).toBe(etag);
      expect(res.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    }
    const other = await get(streamedTrack, { 'if-none-match': '"0000"' });
    expect(other.status).toBe(200);
  });

  it('If-Range: the range with the current ETag, the whole object otherwise', async () => {
    const etag = etagOf(smallTrack);
    const same = await get(smallTrack, { range: 'bytes=0-9', 'if-range': etag });
    expect([same.status, same.body.length]).toEqual([206, 10]);
    for (const stale of ['"0123"', `W/${etag}`, 'Tue, 15 Nov 1994 08:12:31 GMT']) {
      const res = await get(smallTrack, { range: 'bytes=0-9', 'if-range': stale });
      expect([stale, res.status, res.body.length]).toEqual([stale, 200, small.length]);
    }
  });
});

describe('refusals, each with a stable error body and not cacheable', () => {
  const expectError = async (
    res: Awaited<ReturnType<typeof get>>,
    status: number,
    code: string,
  ) => {
    expect(res.status).toBe(status);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expect(res.headers['cache-control']).toBe('no-store');
    const body = JSON.parse(res.body.toString()) as { error: { code: string; message: string } };
    expect(body.error.code).toBe(code);
    expect(typeof body.error.message).toBe('string');
  };

  it.each([
    'not-an-address',
    '0'.repeat(44),
    'I'.repeat(40),
    `${'1'.repeat(50)}`,
    'abc%00def',
    'é'.repeat(20),
  ])('malformed address %j: 400 invalid_track_address', async (address) => {
    await expectError(await get(address), 400, 'invalid_track_address');
  });

  it('a very long address is refused cleanly', async () => {
    const res = await get('A'.repeat(5000));
    expect([400, 404, 414]).toContain(res.status);
  });

  it('a tape that does not exist: 404 track_not_found', async () => {
    const unknown = versionedTrackAddress(Keypair.generate().publicKey, randomBytes(32));
    await expectError(await get(unknown), 404, 'track_not_found');
  });

  it('a 32-byte address (a per-file track account, gone since program 1.2.0): 400', async () => {
    await expectError(
      await get(Keypair.generate().publicKey.toBase58()),
      400,
      'invalid_track_address',
    );
  });

  it('bytes no version names, staged or not: 400 track_not_certified until a version holds them', async () => {
    const bytes = randomBytes(5000);
    const layout = new SegmentingHasher(S).update(bytes).digest();
    const written = fx.client.track(fx.tape, layout);
    await expectError(await get(written), 400, 'track_not_certified');
    // An interrupted upload changes nothing: still not certified, still not served.
    const half = await fx.client.put(written, bytes.subarray(0, 100), {
      headers: { 'content-length': '100' },
    });
    // 100 bytes are not the 5,000 the commitment names.
    expect([half.status, half.body.error?.code]).toEqual([422, 'commitment_mismatch']);
    await expectError(await get(written), 400, 'track_not_certified');
    // Staged whole, but no version names it yet: still refused.
    await fx.client.uploadAll(written, bytes);
    await expectError(await get(written), 400, 'track_not_certified');
    // Once a published version holds it, the same address is served.
    await fx.client.store(fx.wallet, fx.tape, bytes, 'text/plain', S);
    const served = await get(written);
    expect([served.status, served.body.equals(bytes)]).toEqual([200, true]);
  });

  it('other methods and a trailing slash are not routes', async () => {
    expect((await get(smallTrack, {}, 'POST')).status).toBe(404);
    expect((await get(smallTrack, {}, 'DELETE')).status).toBe(404);
    expect((await get(`${smallTrack.address}/`)).status).toBe(404);
  });
});
