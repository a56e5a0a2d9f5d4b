import { PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { Keypair } from '@solana/web3.js';
import { randomBytes } from 'node:crypto';
import { existsSync, readdirSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { join } from 'node:path';
import { commitmentToHex } from '../src/tracks/commitment';
import { SegmentingHasher } from '../src/tracks/track-layout';
import { CephRgw, startCephRgw } from './support/processes/ceph';
import { CliDesk } from './support/labs/cli-desk';
import { GatewayProcess, startGateway } from './support/processes/gateway';
import { RoundRobin, startRoundRobin } from './support/processes/nginx-round-robin';
import { siteGet } from './support/clients/site-http';
import { UploadClient } from './support/clients/upload-client';
import { eventually } from './support/jest/eventually';

/**
 * The topology of docs/operator.md, "Scaling out": one Ceph RGW bucket holds every track; a
 * writer gateway (embedded local network, the storage-authority key, store = s3) takes uploads;
 * two reader gateways (the writer's RPC, no key, same bucket) serve through nginx round-robin.
 */
const BIG = 12 * 1024 * 1024; // past one 8 MiB segment: a manifest and two segment tracks

describe('track store on S3 (Ceph RGW): one writer, two readers behind nginx', () => {
  let ceph: CephRgw;
  let writer: GatewayProcess;
  let readers: GatewayProcess[] = [];
  let lb: RoundRobin;
  const desk = new CliDesk();
  let tape: string;
  /** Clients a test opened (web3.js keeps reconnecting its WebSocket until closed). */
  const cleanups: (() => void)[] = [];
  const files: Record<string, Buffer> = {
    'index.html': Buffer.from('<!doctype html><title>s3</title><p>served by readers</p>'),
    'app.js': Buffer.from('console.log("from the bucket")'),
    'data/table.json': Buffer.from(
      JSON.stringify({ rows: Array.from({ length: 5000 }, (_, i) => i) }),
    ),
    'media/big.bin': randomBytes(BIG),
    'media/kill.bin': randomBytes(BIG),
    // Over 64 KiB, so a track of its own: a small file would share a pack (and its cached
    // chunk) with the files read before the outage.
    'cold/outage.txt': Buffer.from(`only read once the store is back\n${'.'.repeat(70 * 1024)}`),
  };
  const storeEnv = (c: CephRgw): Record<string, string> => ({
    TAPE__STORAGE__TRACKS__STORE: 's3',
    TAPE__STORAGE__TRACKS__S3__ENDPOINT: c.endpoint,
    TAPE__STORAGE__TRACKS__S3__BUCKET: 'tape-e2e',
    TAPE__STORAGE__TRACKS__S3__ACCESS_KEY_ID: c.accessKey,
    TAPE__STORAGE__TRACKS__S3__SECRET_ACCESS_KEY: c.secretKey,
    TAPE__STORAGE__TRACKS__S3__REQUEST_TIMEOUT_MS: '2000',
  });
  const startReader = (dataDir?: string) =>
    startGateway({ rpcUrl: writer.rpcUrl, env: storeEnv(ceph), ...(dataDir && { dataDir }) });
  const path = (name: string) => `/site/${tape}/${name}`;

  beforeAll(async () => {
    ceph = await startCephRgw();
    writer = await startGateway({
      env: {
        ...storeEnv(ceph),
        TAPE__STORAGE__TRACKS__S3__CREATE_BUCKET: 'true',
        // 8 MiB segments go up in two parts: multipart against the real RGW.
        TAPE__STORAGE__TRACKS__S3__MULTIPART_PART_BYTES: String(5 * 1024 * 1024),
      },
    });
    readers = [await startReader(), await startReader()];
    lb = await startRoundRobin(readers.map((r) => r.url));
    const publisher = await desk.withTape(writer, '64m');
    tape = publisher.tape;
    await publisher.u.ok(['deploy', join(desk.site(files), 'index.html')]);
  });
  afterAll(async () => {
    cleanups.forEach((c) => c());
    await lb?.stop();
    for (const r of readers) await r.stop();
    await writer?.stop();
    await ceph?.stop();
    desk.cleanup();
  });

  it('serves every file deployed through the writer from both readers and through nginx', async () => {
    const warm = Object.keys(files).filter((n) => !n.startsWith('cold/') && n !== 'media/kill.bin');
    for (const base of [...readers.map((r) => r.url), lb.url, lb.url]) {
      for (const name of warm) {
        const res = await siteGet(base, path(name));
        expect({ name, status: res.status }).toEqual({ name, status: 200 });
        expect(res.body.equals(files[name])).toBe(true);
      }
    }
    // A range of the big object: only the chunks it touches, verified.
    const ranged = await siteGet(readers[1].url, path('media/big.bin'), {
      headers: { range: 'bytes=9000000-9100000' },
    });
    expect(ranged.status).toBe(206);
    expect(ranged.body.equals(files['media/big.bin'].subarray(9_000_000, 9_100_001))).toBe(true);
  });

  it('readers say so: no key, uploads refused with 503, /healthz names the role', async () => {
    const health = (await (await fetch(`${readers[0].url}/healthz`)).json()) as Record<
      string,
      unknown
    >;
    expect(health.role).toBe('reader');
    expect((health.tracks as { backend: string }).backend).toBe('s3');
    const writerHealth = (await (await fetch(`${writer.url}/healthz`)).json()) as Record<
      string,
      unknown
    >;
    expect(writerHealth.role).toBe('writer');
    const upload = await fetch(
      `${readers[0].url}/upload/${Keypair.generate().publicKey.toBase58()}/${'ab'.repeat(32)}`,
      {
        method: 'PUT',
        body: 'x',
      },
    );
    expect(upload.status).toBe(503);
    expect(((await upload.json()) as { error: { code: string } }).error.code).toBe(
      'gateway_is_reader',
    );
    expect(existsSync(join(readers[0].dataDir, 'gateway-key.json'))).toBe(false);
    const config = (await (await fetch(`${readers[0].url}/upload/config`)).json()) as {
      role: string;
    };
    expect(config.role).toBe('reader');
  });

  it('a reader killed mid-download leaves nothing broken', async () => {
    const victim = readers[0];
    // Registered before the kill: a child killed by a signal keeps exitCode null, so waiting on
    // 'exit' only after checking exitCode could miss an exit that already happened.
    const exited = new Promise((r) => victim.child.once('exit', r));
    let killed = false;
    const got = await new Promise<number>((resolve, reject) => {
      const url = new URL(`${victim.url}${path('media/kill.bin')}`);
      const req = httpRequest({ host: url.hostname, port: url.port, path: url.pathname }, (res) => {
        let received = 0;
        res.on('data', (d: Buffer) => {
          received += d.length;
          if (received > 1024 * 1024 && !killed) {
            killed = true;
            victim.child.kill('SIGKILL');
          }
        });
        res.on('error', () => resolve(received));
        res.on('close', () => resolve(received));
      });
      req.on('error', reject);
      req.end();
    });
    expect(got).toBeLessThan(BIG);
    await exited;
    // The other reader serves it, and nginx routes around the dead one.
    const other = await siteGet(readers[1].url, path('media/kill.bin'));
    expect(other.body.equals(files['media/kill.bin'])).toBe(true);
    const balanced = await siteGet(lb.url, path('media/kill.bin'));
    expect(balanced.body.equals(files['media/kill.bin'])).toBe(true);
    // Restarted on its data directory: no half-filled cache entry, everything served.
    const restarted = await startReader(victim.dataDir);
    readers[0] = restarted;
    expect(readdirSync(join(victim.dataDir, 'track-cache', '.tmp'))).toEqual([]);
    for (const name of ['media/kill.bin', 'media/big.bin', 'index.html']) {
      const res = await siteGet(restarted.url, path(name));
      expect(res.body.equals(files[name])).toBe(true);
    }
  });

  it('store stopped: cached files served, the rest 503, /healthz says why, recovers by itself', async () => {
    const reader = readers[1];
    await ceph.stopRgw();
    try {
      const cached = await siteGet(reader.url, path('index.html'));
      expect(cached.status).toBe(200);
      expect(cached.body.equals(files['index.html'])).toBe(true);
      const bigCached = await siteGet(reader.url, path('media/big.bin'));
      expect(bigCached.body.equals(files['media/big.bin'])).toBe(true);
      const cold = await siteGet(reader.url, path('cold/outage.txt'));
      expect(cold.status).toBe(503);
      expect(cold.text).not.toContain('only read once');
      const health = await fetch(`${reader.url}/healthz`);
      expect(health.status).toBe(503);
      const body = (await health.json()) as { checks: Record<string, string> };
      expect(body.checks['track-store']).toMatch(/^track store unreachable/);
    } finally {
      await ceph.startRgw();
    }
    await eventually(
      'the reader healthy again',
      async () => (await fetch(`${reader.url}/healthz`)).status === 200,
      { timeoutMs: 20_000, everyMs: 200 },
    );
    const cold = await siteGet(reader.url, path('cold/outage.txt'));
    expect(cold.status).toBe(200);
    expect(cold.body.equals(files['cold/outage.txt'])).toBe(true);
  });

  it('a byte flipped in the bucket is caught (502, logged, never served) and repaired by a re-upload', async () => {
    const uploader = new UploadClient(writer.url, writer.rpcUrl);
    cleanups.push(() => uploader.close());
    const wallet = await uploader.fundedWallet();
    const t = await uploader.createTape(wallet, 1024 * 1024, 10);
    const data = Buffer.alloc(200_000, 'tape bytes ');
    const track = await uploader.store(wallet, t, data, 'text/plain', 8 * 1024 * 1024);
    const layout = new SegmentingHasher(8 * 1024 * 1024).update(data).digest();
    if (layout.kind !== 'blob') throw new Error('expected a blob');
    const hex = commitmentToHex(layout.digest.commitment);

    const s3 = new S3Client({
      endpoint: ceph.endpoint,
      region: 'us-east-1',
      forcePathStyle: true,
      credentials: { accessKeyId: ceph.accessKey, secretAccessKey: ceph.secretKey },
    });
    cleanups.push(() => s3.destroy());
    const flipped = Buffer.from(data);
    flipped[150_000] ^= 0x01;
    await s3.send(
      new PutObjectCommand({ Bucket: 'tape-e2e', Key: `tracks/${hex}`, Body: flipped }),
    );

    const reader = readers[1];
    const bad = await siteGet(reader.url, `/object/${track.address}`);
    expect(bad.status).toBe(502);
    expect(bad.body.includes(data.subarray(0, 1000))).toBe(false);
    const ranged = await siteGet(reader.url, `/object/${track.address}`, {
      headers: { range: 'bytes=131072-140000' },
    });
    expect(ranged.status).toBe(502);
    expect(reader.logs()).toContain(hex);
    const health = (await (await fetch(`${reader.url}/healthz`)).json()) as {
      tracks: { recentCorruptTracks: string[] };
    };
    expect(health.tracks.recentCorruptTracks).toContain(hex);

    await uploader.uploadAll(track, data);
    const repaired = await siteGet(reader.url, `/object/${track.address}`);
    expect(repaired.status).toBe(200);
    expect(repaired.body.equals(data)).toBe(true);
  });
});
