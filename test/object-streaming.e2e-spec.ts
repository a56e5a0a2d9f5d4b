import { randomBytes } from 'node:crypto';
import { readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { join } from 'node:path';
import http from 'node:http';
import { CHUNK_BYTES } from '../src/tracks/commitment';
import { ObjectFixture, startObjectFixture } from './support/labs/object-fixture';
import { flipStoredByte, rawRequest } from './support/clients/object-http';
import { WrittenTrack } from './support/clients/upload-client';

/**
 * Default 8 MiB segments: blobs above the 1 MiB hot cache stream from disk. Memory stays flat
 * for stalled clients, vanished clients release their files, and the route is metered per
 * client (X-Forwarded-For from a trusted loopback proxy stands for distinct clients).
 */
const MIB = 1024 * 1024;
const SEGMENT = 8 * MIB;
let fx: ObjectFixture;
const blob = randomBytes(3 * MIB);
const big = randomBytes(3 * SEGMENT + 123);
let blobTrack: WrittenTrack;
let bigTrack: WrittenTrack;

beforeAll(async () => {
  fx = await startObjectFixture({
    env: {
      TAPE__GATEWAY__METERING__TRUSTED_PROXIES: '["127.0.0.1/32"]',
      TAPE__GATEWAY__METERING__OBJECT_BYTES: String(8 * MIB),
      TAPE__GATEWAY__METERING__OBJECT__LIMIT: '30',
      TAPE__GATEWAY__METERING__OBJECT__TTL_SECS: '600',
    },
  });
  blobTrack = await fx.client.store(fx.wallet, fx.tape, blob, 'application/pdf', SEGMENT);
  bigTrack = await fx.client.store(fx.wallet, fx.tape, big, 'video/webm', SEGMENT);
}, 120_000);

afterAll(async () => {
  await fx?.stop();
});

let clients = 0;
/** Every request as a new client (its own metering budget), unless one is given. */
const get = (track: WrittenTrack, headers: Record<string, string> = {}, method = 'GET') =>
  rawRequest(fx.objectUrl(track.address), {
    method,
    headers: {
      'x-forwarded-for': `10.1.${Math.floor(++clients / 250)}.${clients % 250}`,
      ...headers,
    },
  });

function rssBytes(pid: number): number {
  const kb = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
  return Number(kb) * 1024;
}

/** Track files the process holds open (its sockets come and go with chain RPCs: not counted). */
function openTrackFiles(pid: number): number {
  // Files inside the store directory (not its reference index, tracks.references.sqlite).
  const tracks = join(fx.gw.dataDir, 'tracks') + '/';
  return readdirSync(`/proc/${pid}/fd`).filter((fd) => {
    try {
      return readlinkSync(`/proc/${pid}/fd/${fd}`).startsWith(tracks);
    } catch {
      return false; // closed while we looked
    }
  }).length;
}

/** Open track files once they stop decreasing towards zero (up to 5 s). */
async function trackFilesAfterClosing(pid: number): Promise<number> {
  let now = openTrackFiles(pid);
  for (let i = 0; i < 100 && now > 0; i++) {
    await new Promise((r) => setTimeout(r, 50));
    now = openTrackFiles(pid);
  }
  return now;
}

/** Starts a GET and stops reading after the headers; returns the request to destroy later. */
function stalledGet(track: WrittenTrack, i: number): Promise<http.ClientRequest> {
  return new Promise((resolve, reject) => {
    const req = http.get(fx.objectUrl(track.address), {
      agent: false,
      headers: { 'x-forwarded-for': `10.9.0.${i}` },
    });
    req.on('response', (res) => {
      res.pause();
      resolve(req);
    });
    req.on('error', (err) => {
      if (!req.destroyed) reject(err);
    });
  });
}

describe('large objects', () => {
  it('a blob beyond the hot cache streams whole and by range', async () => {
    const whole = await get(blobTrack);
    expect([whole.status, whole.complete, whole.body.equals(blob)]).toEqual([200, true, true]);
    expect(whole.headers['content-type']).toBe('application/pdf');
    const at = 2 * MIB - 5;
    const part = await get(blobTrack, { range: `bytes=${at}-${at + 9}` });
    expect([part.status, part.body.equals(blob.subarray(at, at + 10))]).toEqual([206, true]);
  });

  it('a tampered large blob: 502 when its first chunk fails, a cut when a later one does', async () => {
    const first = await fx.client.store(fx.wallet, fx.tape, randomBytes(2 * MIB), 'a/b', SEGMENT);
    const own = (t: WrittenTrack) =>
      t.layout.kind === 'blob' ? t.layout.digest.commitment : Buffer.alloc(0);
    flipStoredByte(fx.gw.dataDir, own(first), 5);
    const refused = await get(first);
    expect([refused.status, JSON.parse(refused.body.toString()).error.code]).toEqual([
      502,
      'integrity_failure',
    ]);

    const source = randomBytes(2 * MIB);
    const later = await fx.client.store(fx.wallet, fx.tape, source, 'a/b', SEGMENT);
    flipStoredByte(fx.gw.dataDir, own(later), 20 * CHUNK_BYTES + 1);
    const cut = await get(later);
    expect([cut.status, cut.complete]).toEqual([200, false]);
    expect(cut.body.length).toBeLessThanOrEqual(20 * CHUNK_BYTES);
    expect(cut.body.equals(source.subarray(0, cut.body.length))).toBe(true);
  });

  it('stalled clients do not make the gateway hold the object in memory', async () => {
    const pid = fx.gw.pid;
    await get(bigTrack, { range: 'bytes=0-0' }); // warm the manifest
    const before = rssBytes(pid);
    const stalled = await Promise.all(
      Array.from({ length: 10 }, (_, i) => stalledGet(bigTrack, i)),
    );
    await new Promise((r) => setTimeout(r, 1500));
    const during = rssBytes(pid);
    stalled.forEach((req) => req.destroy());
    // Ten clients of a 24 MiB object: buffering it whole would add 240 MiB.
    expect(during - before).toBeLessThan(64 * MIB);
  });

  it('vanished clients release the files they were reading', async () => {
    const pid = fx.gw.pid;
    expect(await trackFilesAfterClosing(pid)).toBe(0); // the previous test's clients included
    const stalled = await Promise.all(
      Array.from({ length: 12 }, (_, i) => stalledGet(bigTrack, 100 + i)),
    );
    expect(openTrackFiles(pid)).toBeGreaterThanOrEqual(12); // one segment file per response
    stalled.forEach((req) => req.destroy());
    expect(await trackFilesAfterClosing(pid)).toBe(0);
    // The gateway still serves the object whole afterwards.
    const res = await get(bigTrack);
    expect([res.status, res.body.equals(big)]).toEqual([200, true]);
  });
});

describe('metering per client', () => {
  it('the byte budget refuses a response that would go past it, with Retry-After', async () => {
    const client = { 'x-forwarded-for': '10.200.0.1' };
    expect((await get(blobTrack, client)).status).toBe(200); // 3 MiB
    expect((await get(blobTrack, { ...client, range: 'bytes=0-' })).status).toBe(206); // 6 MiB
    const refused = await get(blobTrack, client); // 9 MiB > 8 MiB
    expect(refused.status).toBe(429);
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
    expect(refused.headers['cache-control']).toBe('no-store');
    expect(JSON.parse(refused.body.toString()).error.code).toBe('too_many_requests');
    // Zero-byte answers (HEAD) still pass, and other clients are not affected.
    expect((await get(blobTrack, client, 'HEAD')).status).toBe(200);
    expect((await get(blobTrack, { 'x-forwarded-for': '10.200.0.2' })).status).toBe(200);
  });

  it('the request budget refuses the request after the limit', async () => {
    const client = { 'x-forwarded-for': '10.200.1.1' };
    const statuses: number[] = [];
    for (let i = 0; i < 31; i++) statuses.push((await get(blobTrack, client, 'HEAD')).status);
    expect(statuses.slice(0, 30).every((s) => s === 200)).toBe(true);
    expect(statuses[30]).toBe(429);
    expect((await get(blobTrack, { 'x-forwarded-for': '10.200.1.2' }, 'HEAD')).status).toBe(200);
  });
});
