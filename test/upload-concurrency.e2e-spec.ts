import { randomBytes } from 'node:crypto';
import http from 'node:http';
import { SegmentingHasher } from '../src/tracks/track-layout';
import { UploadSigner } from '../src/cli/deploy/upload-signer';
import { versionUploadMessage } from '../src/upload/version-request-auth';
import { ObjectFixture, SEGMENT_BYTES, startObjectFixture } from './support/labs/object-fixture';
import { eventually } from './support/jest/eventually';
import { metricsText, sample } from './support/clients/metrics-text';
import { TestTape, WrittenTrack } from './support/clients/upload-client';

/**
 * Issue 15, finding 8 (uploads): at most storage.uploads.max_per_client uploads in progress per
 * client and max_per_tape per tape. Uploads are held open with slow bodies (headers and 10 KiB
 * sent, the rest withheld); the next one gets 429 with Retry-After and the gateway's error
 * body, and a slot frees when a held upload finishes or is aborted. Two clients: 127.0.0.1 and
 * 127.0.0.2 (both loopback on Linux).
 */
const PER_CLIENT = 2;
const PER_TAPE = 3;
let fx: ObjectFixture;

beforeAll(async () => {
  fx = await startObjectFixture({
    env: {
      TAPE__STORAGE__SEGMENT_BYTES: String(SEGMENT_BYTES),
      TAPE__STORAGE__UPLOADS__MAX_PER_CLIENT: String(PER_CLIENT),
      TAPE__STORAGE__UPLOADS__MAX_PER_TAPE: String(PER_TAPE),
      TAPE__GATEWAY__METERING__UPLOAD__LIMIT: '5000',
    },
  });
}, 60_000);

afterAll(async () => {
  await fx?.stop();
});

interface Reply {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: { error?: { code: string; message: string } };
}

/** A signed upload whose body is sent only up to `sent` bytes until `finish()`. */
function openUpload(track: WrittenTrack, bytes: Buffer, from: string, sent = 10_240) {
  if (track.layout.kind !== 'blob') throw new Error('blob tracks only');
  const headers = {
    'content-type': 'application/octet-stream',
    'content-length': String(bytes.length),
    ...new UploadSigner(track.tape.keypair).signed((timestamp) =>
      versionUploadMessage({
        tape: track.tape.address.toBase58(),
        commitment: track.commitment,
        size: bytes.length,
        timestamp,
      }),
    ),
  };
  const req = http.request(
    `${fx.gw.url}/upload/${track.tape.address.toBase58()}/${track.commitment}`,
    {
      method: 'PUT',
      headers,
      agent: false,
      localAddress: from,
    },
  );
  const reply = new Promise<Reply>((resolve, reject) => {
    req.on('error', reject);
    req.on('response', (res) => {
      const parts: Buffer[] = [];
      res.on('data', (d: Buffer) => parts.push(d));
      res.on('end', () =>
        resolve({
          status: res.statusCode ?? 0,
          headers: res.headers,
          body: JSON.parse(Buffer.concat(parts).toString() || '{}') as Reply['body'],
        }),
      );
    });
  });
  req.write(bytes.subarray(0, sent));
  return {
    reply,
    finish: () => req.end(bytes.subarray(sent)),
    abort: () => {
      reply.catch(() => undefined);
      req.destroy();
    },
  };
}

async function newTrack(tape: TestTape = fx.tape) {
  const bytes = randomBytes(100_000);
  const layout = new SegmentingHasher(SEGMENT_BYTES).update(bytes).digest();
  const track = fx.client.track(tape, layout);
  return { track, bytes };
}

async function inProgress(): Promise<number> {
  return sample(await metricsText(fx.gw), 'tape_uploads_in_progress');
}

/** Waits until the gateway holds `count` upload slots (its uploads in progress metric). */
async function settle(count: number) {
  await eventually(`${count} uploads in progress`, async () => (await inProgress()) === count);
}

async function refusals(scope: 'client' | 'tape'): Promise<number> {
  return sample(await metricsText(fx.gw), 'tape_upload_slot_refusals_total', `scope="${scope}"`);
}

function expectRefused(reply: Reply, scope: 'client' | 'tape') {
  expect(reply.status).toBe(429);
  expect(reply.body.error?.code).toBe('too_many_requests');
  expect(reply.body.error?.message).toContain(`per ${scope}`);
  expect(reply.headers['retry-after']).toBe('1');
}

describe('concurrent uploads', () => {
  it('per client: the N+1th upload gets 429; a finished or aborted upload frees its slot', async () => {
    const tracks = await Promise.all([newTrack(), newTrack(), newTrack(), newTrack()]);
    const before = await inProgress();
    const refusedBefore = await refusals('client');
    const held = tracks.slice(0, PER_CLIENT).map((t) => openUpload(t.track, t.bytes, '127.0.0.1'));
    await settle(before + PER_CLIENT);
    const extra = tracks[PER_CLIENT];
    const refused = openUpload(extra.track, extra.bytes, '127.0.0.1', extra.bytes.length);
    refused.finish();
    expectRefused(await refused.reply, 'client');
    expect(await refusals('client')).toBe(refusedBefore + 1);

    held[0].finish();
    expect((await held[0].reply).status).toBe(200);
    const retry = openUpload(extra.track, extra.bytes, '127.0.0.1', 0);
    retry.finish();
    expect((await retry.reply).status).toBe(200);

    held[1].abort();
    await settle(before + PER_CLIENT - 2);
    const last = tracks[PER_CLIENT + 1];
    const after = openUpload(last.track, last.bytes, '127.0.0.1', 0);
    after.finish();
    expect((await after.reply).status).toBe(200);
  });

  it('per tape: another client is refused once the tape has its limit in progress; other tapes are not', async () => {
    const tracks = await Promise.all([newTrack(), newTrack(), newTrack(), newTrack()]);
    const before = await inProgress();
    const refusedBefore = await refusals('tape');
    const held = [
      openUpload(tracks[0].track, tracks[0].bytes, '127.0.0.1'),
      openUpload(tracks[1].track, tracks[1].bytes, '127.0.0.1'),
      openUpload(tracks[2].track, tracks[2].bytes, '127.0.0.2'),
    ];
    await settle(before + 3);
    const refused = openUpload(tracks[3].track, tracks[3].bytes, '127.0.0.2', 0);
    refused.finish();
    expectRefused(await refused.reply, 'tape');
    expect(await refusals('tape')).toBe(refusedBefore + 1);

    const otherTape = await fx.client.createTape(fx.wallet, 1 << 20, 10);
    const elsewhere = await newTrack(otherTape);
    const ok = openUpload(elsewhere.track, elsewhere.bytes, '127.0.0.2', 0);
    ok.finish();
    expect((await ok.reply).status).toBe(200);

    for (const h of held) h.finish();
    expect((await Promise.all(held.map((h) => h.reply))).map((r) => r.status)).toEqual([
      200, 200, 200,
    ]);
  });
});
