import { randomBytes } from 'node:crypto';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { commitmentToHex } from '../src/tracks/commitment';
import { SegmentingHasher, TrackLayout } from '../src/tracks/track-layout';
import { ObjectFixture, startObjectFixture } from './support/object-fixture';
import { rawRequest, storedTrackPath } from './support/object-http';
import { WrittenTrack } from './support/upload-client';

/**
 * Issue 15, finding 1: paid capacity bounds the gateway's disk. WriteTrack -> PUT /upload ->
 * ReleaseTrack gives the capacity back each round; the garbage collector must give the disk
 * back too. The gateway runs a pass every 300 ms (storage.gc.interval_ms) with no pending grace,
 * so the test only waits for passes, it triggers nothing.
 */
const S = 262144;
const ROUND_BYTES = 700 * 1024; // most of the 1 MiB tape: three segments and a manifest
let fx: ObjectFixture;

beforeAll(async () => {
  fx = await startObjectFixture({
    capacity: 1 << 20,
    env: {
      TAPE__STORAGE__SEGMENT_BYTES: String(S),
      TAPE__STORAGE__GC__INTERVAL_MS: '300',
      TAPE__STORAGE__GC__PENDING_GRACE_SECS: '0',
      TAPE__GATEWAY__METERING__UPLOAD__LIMIT: '5000',
    },
  });
}, 60_000);

afterAll(async () => {
  await fx?.stop();
});

/** Bytes of every file in the track store (data, chunk lists, temporaries, quarantine). */
function storeBytes(): number {
  let total = 0;
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else total += statSync(path).size;
    }
  };
  walk(join(fx.gw.dataDir, 'tracks'));
  return total;
}

interface GcStats {
  passes: number;
  deleted: number;
  deletedBytes: number;
}

async function gcStats(): Promise<GcStats> {
  const res = await rawRequest(`${fx.gw.url}/healthz`);
  return (JSON.parse(res.body.toString()) as { track_gc: GcStats }).track_gc;
}

/** Resolves once `count` whole passes started after this call have finished. */
async function passesAfterNow(count: number): Promise<GcStats> {
  const start = (await gcStats()).passes;
  const deadline = Date.now() + 30_000;
  for (;;) {
    const stats = await gcStats();
    // The pass running at `start` may have begun earlier: one more than asked.
    if (stats.passes >= start + count + 1) return stats;
    if (Date.now() > deadline) throw new Error(`GC passes stuck at ${stats.passes}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

async function release(track: WrittenTrack) {
  const { chain } = fx.client;
  await chain.writer.send(
    [
      chain.ix.releaseTrack({
        receiver: fx.wallet.publicKey,
        signer: track.tape.keypair.publicKey,
        tape: track.tape.address,
        track: track.address,
      }),
    ],
    [fx.wallet, track.tape.keypair],
  );
}

describe('track store garbage collection', () => {
  it('50 rounds of WriteTrack, upload, ReleaseTrack leave the store within one round of empty', async () => {
    for (let round = 0; round < 50; round++) {
      // Even rounds a blob, odd rounds a streamed object (segments + manifest).
      const bytes = randomBytes(round % 2 === 0 ? 200 * 1024 : ROUND_BYTES);
      const track = await fx.client.store(fx.wallet, fx.tape, bytes, 'application/octet-stream', S);
      await release(track);
    }
    const stats = await passesAfterNow(1);
    expect(storeBytes()).toBeLessThanOrEqual(ROUND_BYTES + 4096);
    // Without collection the store would hold about 22 MiB; most of it went through the GC.
    expect(stats.deletedBytes).toBeGreaterThan(45 * ((200 * 1024 + ROUND_BYTES) / 2));
  }, 300_000);

  it('keeps the bytes of a live track, and of a blob another live track shares', async () => {
    const bytes = randomBytes(50_000);
    const kept = await fx.client.store(fx.wallet, fx.tape, bytes, 'text/plain', S);
    const other = await fx.client.createTape(fx.wallet, 1 << 20, 10);
    const shared = await fx.client.store(fx.wallet, other, bytes, 'text/plain', S);
    await release(shared);
    await passesAfterNow(1);
    const res = await rawRequest(fx.objectUrl(kept.address));
    expect([res.status, res.body.equals(bytes)]).toEqual([200, true]);
  }, 60_000);

  it('a refused manifest upload does not delete bytes another tape’s track names', async () => {
    const bytes = randomBytes(40_000);
    const victim = await fx.client.store(fx.wallet, fx.tape, bytes, 'text/plain', S);
    if (victim.layout.kind !== 'blob') throw new Error('expected a blob');
    // Another tenant registers the same commitment as a manifest track and uploads the bytes:
    // they are not a manifest, so the upload is refused.
    const attacker = await fx.client.createTape(fx.wallet, 1 << 20, 10);
    const fake: TrackLayout = {
      kind: 'manifest',
      size: 999,
      manifestDigest: victim.layout.digest,
      manifestBytes: bytes,
    } as unknown as TrackLayout;
    const track = await fx.client.writeTrack(fx.wallet, attacker, fake, 'text/plain');
    const reply = await fx.client.put(track, bytes);
    expect([reply.status, reply.body.error?.code]).toEqual([400, 'bad_request']);
    const res = await rawRequest(fx.objectUrl(victim.address));
    expect([res.status, res.body.equals(bytes)]).toEqual([200, true]);
  });

  it('refuses segments past the bytes the manifest track reserved (413) and does not store them', async () => {
    const bytes = randomBytes(2 * S);
    const layout = new SegmentingHasher(S).update(bytes).digest();
    const track = await fx.client.writeTrack(
      fx.wallet,
      fx.tape,
      layout,
      'application/octet-stream',
    );
    if (layout.kind !== 'manifest') throw new Error('expected a streamed layout');
    for (const segment of layout.segments) {
      const part = bytes.subarray(segment.offset, segment.offset + segment.size);
      const reply = await fx.client.put(track, part, {
        segment: commitmentToHex(segment.commitment),
      });
      expect(reply.status).toBe(200);
    }
    const extra = randomBytes(S);
    const extraLayout = new SegmentingHasher(S).update(extra).digest();
    if (extraLayout.kind !== 'blob') throw new Error('expected one segment');
    const refused = await fx.client.put(track, extra, {
      segment: commitmentToHex(extraLayout.digest.commitment),
    });
    expect([refused.status, refused.body.error?.code]).toEqual([413, 'payload_too_large']);
    expect(existsSync(storedTrackPath(fx.gw.dataDir, extraLayout.digest.commitment))).toBe(false);
    // Re-sending a segment already counted is still fine.
    const first = layout.segments[0];
    const again = await fx.client.put(track, bytes.subarray(0, first.size), {
      segment: commitmentToHex(first.commitment),
    });
    expect(again.status).toBe(200);
  }, 60_000);
});
