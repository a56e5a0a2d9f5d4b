import { randomBytes } from 'node:crypto';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { commitmentToHex } from '../src/tracks/commitment';
import { ObjectFixture, SEGMENT_BYTES, startObjectFixture } from './support/labs/object-fixture';
import { rawRequest, storedTrackPath } from './support/clients/object-http';

/**
 * Issue 15, finding 7: a corrupted stored track can be repaired by uploading the right bytes
 * again. The verified upload replaces the bad copy atomically, the bad copy is kept in
 * `tracks/quarantine/`, and /healthz names the track in its details while staying ready.
 */
let fx: ObjectFixture;

beforeAll(async () => {
  fx = await startObjectFixture({
    env: { TAPE__STORAGE__SEGMENT_BYTES: String(SEGMENT_BYTES) },
  });
}, 60_000);

afterAll(async () => {
  await fx?.stop();
});

interface Health {
  status: string;
  tracks: { corruptTracks: number; recentCorruptTracks: string[]; quarantined: number };
}

async function health(): Promise<{ code: number; body: Health }> {
  const res = await rawRequest(`${fx.gw.url}/healthz`);
  return { code: res.status, body: JSON.parse(res.body.toString()) as Health };
}

describe('repairing a corrupt stored track', () => {
  it('flipped bytes: GET 502; re-upload 200; GET 200 with the right bytes; quarantine and /healthz name it', async () => {
    const bytes = randomBytes(200_000);
    const track = await fx.client.store(
      fx.wallet,
      fx.tape,
      bytes,
      'application/octet-stream',
      SEGMENT_BYTES,
    );
    if (track.layout.kind !== 'blob') throw new Error('expected a blob');
    const commitment = track.layout.digest.commitment;
    const hex = commitmentToHex(commitment);
    const path = storedTrackPath(fx.gw.dataDir, commitment);
    const bad = readFileSync(path);
    bad.writeUInt32LE((bad.readUInt32LE(70_000) ^ 0xffffffff) >>> 0, 70_000); // 4 bytes
    writeFileSync(path, bad);

    expect((await rawRequest(fx.objectUrl(track.address))).status).toBe(502);

    expect((await fx.client.put(track, bytes)).status).toBe(200);

    const res = await rawRequest(fx.objectUrl(track.address));
    expect([res.status, res.complete, res.body.equals(bytes)]).toEqual([200, true, true]);
    expect(readFileSync(path).equals(bytes)).toBe(true);

    const quarantine = join(fx.gw.dataDir, 'tracks', 'quarantine');
    const held = readdirSync(quarantine).filter((f) => f.startsWith(hex) && !f.endsWith('.chunks'));
    expect(held).toHaveLength(1);
    expect(readFileSync(join(quarantine, held[0])).equals(bad)).toBe(true);

    const report = await health();
    expect(report.code).toBe(200); // one corrupt track does not take the gateway out of service
    expect(report.body.status).toBe('ok');
    expect(report.body.tracks.recentCorruptTracks).toContain(hex);
    expect(report.body.tracks.quarantined).toBe(1);
    expect(fx.gw.logs()).toContain('replaced by a verified upload');
  });
});
