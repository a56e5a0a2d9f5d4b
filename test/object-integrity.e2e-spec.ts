import { randomBytes } from 'node:crypto';
import { rmSync } from 'node:fs';
import { CHUNK_BYTES } from '../src/tracks/commitment';
import { SegmentingHasher } from '../src/tracks/track-layout';
import { SEGMENT_BYTES, ObjectFixture, startObjectFixture } from './support/labs/object-fixture';
import {
  flipStoredByte,
  rawRequest,
  RawResponse,
  storedTrackPath,
} from './support/clients/object-http';
import { WrittenTrack } from './support/clients/upload-client';
import { eventually } from './support/jest/eventually';

/**
 * Storage is not trusted: bytes tampered with (or lost) in `<dataDir>/tracks` are never served.
 * Before the status line that is a 502 and a log line naming the track; after it, the
 * connection is cut before the bad chunk. 256 KiB segments, so objects span several.
 */
const S = SEGMENT_BYTES;
let fx: ObjectFixture;

beforeAll(async () => {
  fx = await startObjectFixture({ env: { TAPE__STORAGE__SEGMENT_BYTES: String(S) } });
}, 60_000);

afterAll(async () => {
  await fx?.stop();
});

async function stored(bytes: Buffer, contentType = 'application/octet-stream') {
  return fx.client.store(fx.wallet, fx.tape, bytes, contentType, S);
}
const get = (track: WrittenTrack, headers: Record<string, string> = {}) =>
  rawRequest(fx.objectUrl(track.address), { headers });
const segmentCommitment = (track: WrittenTrack, index: number) => {
  if (track.layout.kind !== 'manifest') throw new Error('not a streamed object');
  return track.layout.segments[index].commitment;
};
const ownCommitment = (track: WrittenTrack) =>
  track.layout.kind === 'blob'
    ? track.layout.digest.commitment
    : track.layout.manifestDigest.commitment;

function expectBadGateway(res: RawResponse, code: string) {
  expect(res.status).toBe(502);
  expect(res.headers['cache-control']).toBe('no-store');
  expect(res.headers.etag).toBeUndefined();
  expect(JSON.parse(res.body.toString()).error.code).toBe(code);
}

/** Waits for the gateway's log to mention `text` (log lines are flushed asynchronously). */
async function logMentions(text: string): Promise<boolean> {
  return eventually(`the log mentions ${text}`, () => fx.gw.logs().includes(text), {
    timeoutMs: 5_000,
  }).then(
    () => true,
    () => false,
  );
}

describe('tampered bytes are never served', () => {
  it('a bad first chunk: 502 integrity_failure, a log line naming the track, other segments still served', async () => {
    const source = randomBytes(3 * S + 100);
    const track = await stored(source);
    flipStoredByte(fx.gw.dataDir, segmentCommitment(track, 0), 10);
    expectBadGateway(await get(track), 'integrity_failure');
    expect(await logMentions(track.address)).toBe(true);
    expectBadGateway(await get(track, { range: 'bytes=0-0' }), 'integrity_failure');
    // A range that does not touch the bad chunk is verified on its own and served.
    const fine = await get(track, { range: `bytes=${CHUNK_BYTES}-${2 * S + 5}` });
    expect(fine.status).toBe(206);
    expect(fine.body.equals(source.subarray(CHUNK_BYTES, 2 * S + 6))).toBe(true);
  });

  it('a bad chunk later on: the response stops before it and the connection is cut', async () => {
    const source = randomBytes(4 * S);
    const track = await stored(source);
    const badAt = 2 * S + 3 * CHUNK_BYTES + 7; // segment 2, its fourth chunk
    flipStoredByte(fx.gw.dataDir, segmentCommitment(track, 2), badAt - 2 * S);
    const res = await get(track);
    expect(res.status).toBe(200);
    expect(res.headers['content-length']).toBe(String(source.length));
    expect(res.complete).toBe(false);
    const chunkStart = badAt - (badAt % CHUNK_BYTES);
    expect(res.body.length).toBeLessThanOrEqual(chunkStart);
    expect(res.body.equals(source.subarray(0, res.body.length))).toBe(true);
    expect(await logMentions(`${track.address}`)).toBe(true);
    expect(await logMentions('cut mid-stream')).toBe(true);
    // A multipart answer whose later part fails is cut the same way.
    const multi = await get(track, { range: `bytes=0-9,${badAt}-${badAt + 1}` });
    expect(multi.status).toBe(206);
    expect(multi.complete).toBe(false);
    expect(multi.body.includes(source.subarray(badAt - 1, badAt + 2))).toBe(false);
  });

  it('a tampered small object is refused on its first read', async () => {
    const source = randomBytes(50_000);
    const track = await stored(source, 'text/html');
    flipStoredByte(fx.gw.dataDir, ownCommitment(track), 49_999);
    expectBadGateway(await get(track), 'integrity_failure');
    expectBadGateway(await get(track, { range: 'bytes=0-0' }), 'integrity_failure');
  });

  it('a chunk list tampered before certification: the version is refused, nothing served', async () => {
    // Certification reads (and verifies) every track's chunk list, so a list tampered after it
    // is never read again by this process: tamper between the upload and the Publish.
    const bytes = randomBytes(70_000);
    const blob = fx.client.track(fx.tape, new SegmentingHasher(S).update(bytes).digest());
    await fx.client.uploadAll(blob, bytes);
    flipStoredByte(fx.gw.dataDir, ownCommitment(blob), 40, '.chunks'); // never read before
    await expect(
      fx.client.store(fx.wallet, fx.tape, bytes, 'application/octet-stream', S),
    ).rejects.toThrow(/422/);
    const res = await get(blob);
    expect([res.status, res.body.includes(bytes.subarray(0, 64))]).toEqual([400, false]);
  });

  it('a tampered manifest is refused', async () => {
    // On a tape of its own: a version whose stored manifest is corrupt is the base of the
    // tape's next Publish, which then cannot be certified until the manifest is repaired.
    const own = await fx.client.createTape(fx.wallet, 1 << 22, 10);
    const streamed = await fx.client.store(fx.wallet, own, randomBytes(2 * S + 1), 'a/b', S);
    flipStoredByte(fx.gw.dataDir, ownCommitment(streamed), 30); // inside the manifest's JSON
    expectBadGateway(await get(streamed), 'integrity_failure');
    expectBadGateway(await get(streamed, { range: 'bytes=5-6' }), 'integrity_failure');
  });

  it('a lost segment: ranges elsewhere still served, ranges on it 502 content_unavailable', async () => {
    const source = randomBytes(3 * S);
    const track = await stored(source);
    rmSync(storedTrackPath(fx.gw.dataDir, segmentCommitment(track, 1)));
    const before = await get(track, { range: `bytes=0-${S - 1}` });
    expect([before.status, before.body.equals(source.subarray(0, S))]).toEqual([206, true]);
    const after = await get(track, { range: `bytes=${2 * S}-` });
    expect([after.status, after.body.equals(source.subarray(2 * S))]).toEqual([206, true]);
    expectBadGateway(
      await get(track, { range: `bytes=${S + 5}-${S + 10}` }),
      'content_unavailable',
    );
    const whole = await get(track);
    expect([whole.status, whole.complete]).toEqual([200, false]);
    expect(whole.body.length).toBeLessThanOrEqual(S);
  });
});
