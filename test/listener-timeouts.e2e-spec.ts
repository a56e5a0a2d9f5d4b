import { Keypair } from '@solana/web3.js';
import { randomBytes } from 'node:crypto';
import { existsSync, readdirSync } from 'node:fs';
import http from 'node:http';
import { Socket } from 'node:net';
import { join } from 'node:path';
import { UploadSigner } from '../src/cli/deploy/upload-signer';
import { SegmentingHasher } from '../src/tracks/track-layout';
import { versionUploadMessage } from '../src/upload/version-request-auth';
import { storedTrackPath } from './support/clients/object-http';
import { s3PutHead } from './support/clients/s3-put-head';
import { useS3TapeFixture } from './support/labs/s3-tape-fixture';
import { TestTape, UploadClient, WrittenTrack } from './support/clients/upload-client';

/**
 * Issue 15, finding 8: a client that stops sending a request body has its connection closed
 * within gateway.body_idle_timeout_ms (2 s here) on both listeners, and leaves no temporary file;
 * a slow upload that keeps sending is never cut.
 */
jest.setTimeout(120_000);

const KiB = 1024;
const IDLE_MS = 2000;
const SEGMENT_BYTES = 262144;

const fx = useS3TapeFixture({
  config: {
    localnet: { slot_ms: 100 },
    storage: { segment_bytes: SEGMENT_BYTES },
    gateway: { body_idle_timeout_ms: IDLE_MS },
  },
});
let uploads: UploadClient;
let wallet: Keypair;
let tape: TestTape;

beforeAll(async () => {
  uploads = new UploadClient(fx.lab.gw.url, fx.lab.gw.rpcUrl);
  wallet = await uploads.fundedWallet();
  tape = await uploads.createTape(wallet, 64 << 20, 100);
});

afterAll(() => uploads?.close());

const trackTempFiles = () =>
  readdirSync(join(fx.lab.gw.dataDir, 'tracks', '.tmp')).filter((f) => f.endsWith('.part'));
const s3SpoolFiles = () => readdirSync(join(fx.lab.gw.dataDir, 's3-spool'));
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function writtenTrack(bytes: Buffer): WrittenTrack {
  return uploads.track(tape, new SegmentingHasher(SEGMENT_BYTES).update(bytes).digest());
}

/** `PUT /upload/{tape}/{commitment}` of a version's bytes. */
const uploadUrl = (track: WrittenTrack) =>
  `${fx.lab.gw.url}/upload/${tape.address.toBase58()}/${track.commitment}`;
const stored = (track: WrittenTrack) =>
  existsSync(storedTrackPath(fx.lab.gw.dataDir, Buffer.from(track.commitment, 'hex')));

function uploadHeaders(track: WrittenTrack, bytes: Buffer): Record<string, string> {
  if (track.layout.kind !== 'blob') throw new Error('a blob is expected');
  return {
    ...new UploadSigner(tape.keypair).signed((timestamp) =>
      versionUploadMessage({
        tape: tape.address.toBase58(),
        commitment: track.commitment,
        size: bytes.length,
        timestamp,
      }),
    ),
    'content-type': 'application/octet-stream',
    'content-length': String(bytes.length),
  };
}

/** Milliseconds from now until `socket` is closed (by the server), or null after `waitMs`. */
function closedWithin(socket: Socket, waitMs: number): Promise<number | null> {
  const started = Date.now();
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      socket.destroy();
      resolve(null);
    }, waitMs);
    socket.on('error', () => undefined);
    socket.once('close', () => {
      clearTimeout(timer);
      resolve(Date.now() - started);
    });
  });
}

describe('body idle timeout', () => {
  it('a PUT /upload that stops sending after 10 KiB is closed within the idle timeout and keeps no temp file', async () => {
    const bytes = randomBytes(100 * KiB);
    const track = writtenTrack(bytes);
    const req = http.request(uploadUrl(track), {
      method: 'PUT',
      headers: uploadHeaders(track, bytes),
      agent: false,
    });
    req.on('error', () => undefined);
    const socket = await new Promise<Socket>((resolve) => req.once('socket', resolve));
    await new Promise<void>((resolve) => req.write(bytes.subarray(0, 10 * KiB), () => resolve()));
    const closedAfter = await closedWithin(socket, IDLE_MS + 8000);
    expect(closedAfter).not.toBeNull();
    expect(closedAfter!).toBeLessThan(IDLE_MS + 3000);
    await sleep(300);
    expect(trackTempFiles()).toEqual([]);
    expect(stored(track)).toBe(false);
  });

  it('a PUT /upload that sends a little every 700 ms for longer than the idle timeout completes', async () => {
    const pieces = Array.from({ length: 6 }, () => randomBytes(8 * KiB));
    const bytes = Buffer.concat(pieces);
    const track = writtenTrack(bytes);
    const status = await new Promise<number>((resolve, reject) => {
      const req = http.request(
        uploadUrl(track),
        { method: 'PUT', headers: uploadHeaders(track, bytes), agent: false },
        (res) => {
          res.resume();
          res.on('end', () => resolve(res.statusCode ?? 0));
        },
      );
      req.on('error', reject);
      void (async () => {
        for (const piece of pieces) {
          req.write(piece);
          await sleep(700);
        }
        req.end();
      })();
    });
    expect(status).toBe(200);
    expect(stored(track)).toBe(true);
  });

  it('an S3 PutObject that stops sending after 10 KiB is closed within the idle timeout and keeps no spool file', async () => {
    const socket = await s3PutHead(fx.lab.gw.s3Url, fx.site, 'stalled.bin', 4 * 1024 * KiB);
    socket.write(randomBytes(10 * KiB));
    const closedAfter = await closedWithin(socket, IDLE_MS + 8000);
    expect(closedAfter).not.toBeNull();
    expect(closedAfter!).toBeLessThan(IDLE_MS + 3000);
    await sleep(300);
    expect(s3SpoolFiles()).toEqual([]);
  });

  it('an S3 PutObject that sends a little every 700 ms for longer than the idle timeout completes', async () => {
    const pieces = Array.from({ length: 6 }, () => randomBytes(8 * KiB));
    const socket = await s3PutHead(fx.lab.gw.s3Url, fx.site, 'steady.bin', 6 * 8 * KiB);
    let response = '';
    socket.on('data', (d: Buffer) => (response += d.toString('latin1')));
    for (const piece of pieces) {
      socket.write(piece);
      await sleep(700);
    }
    const started = Date.now();
    while (!response.includes('\r\n\r\n') && Date.now() - started < 20_000) await sleep(50);
    socket.destroy();
    expect(response).toMatch(/^HTTP\/1\.1 200 /);
  });
});
