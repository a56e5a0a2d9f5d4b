/**
 * `npm run bench -- s3-store`: a reader gateway on the S3 backend (Ceph RGW on loopback, the
 * topology of docs/operator.md "Scaling out": a writer uploads, a reader on the same bucket
 * serves), each figure beside its peer measured in the same run:
 *
 * 1. warm 256 KiB object reads (wrk) vs nginx serving the same file (goal >= 0.8x);
 * 2. cold 256 KiB reads (the reader has never read these bytes: one distinct object per
 *    request, its chain record warmed by a HEAD first), p50 latency of each reader vs the GET
 *    it sends itself, straight from RGW (goal <= 1.3x): a reader with keys vs the same
 *    SigV4-signed ranged GET, an anonymous reader of the public-read bucket vs a plain ranged
 *    GET; the AWS SDK's own GetObject beside them, and the floor under any reader: the plain GET
 *    forwarded by one hop that verifies nothing (nginx, and the smallest node:http proxy);
 * 3. 8 clients each reading a 1 GiB streamed object (128 segments of 8 MiB) at once, aggregate
 *    GB/s vs nginx serving the same bytes from a file (goal >= 0.5x); the first, cold read of
 *    the object (filling the reader's cache from the store) and the reader's peak RSS beside.
 *
 * Medians of BENCH_RUNS runs (default 5 for wrk, 3 for streaming), the two servers interleaved.
 * Metering stays on (limits no run reaches). Needs about 2.5 GB in the temp directory and
 * ~3 GB of RAM (the OSD keeps the bucket in memory); everything is removed at the end.
 */
import { GetObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { Keypair } from '@solana/web3.js';
import { randomBytes } from 'node:crypto';
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { TrackS3Config } from '../src/config/storage.config';
import { commitmentToHex } from '../src/tracks/commitment';
import { signedRangedGet } from '../src/tracks/s3/ranged-get';
import { percentile, timedGet, wrk, writeRandomFile } from './support/object-bench-tools';
import { UNREACHED_OBJECT_BUDGETS } from './support/bench-gateway';
import { startNginx } from './support/nginx';
import { procStatusBytes } from '../test/support/processes/proc-status';
import { startNodePassThrough } from './support/node-pass-through';
import { allowPublicRead } from '../test/support/processes/ceph';
import { S3StoreLab, startS3StoreLab } from '../test/support/labs/s3-store-lab';
import { TestTape, UploadClient, WrittenTrack } from '../test/support/clients/upload-client';
import type { GatewayProcess } from '../test/support/processes/gateway';
import { CLOCK_TICKS_PER_SEC, cpuTicks, median } from './wrk-runner';

const KIB = 1024;
const MIB = 1024 * KIB;
const GIB = 1024 * MIB;
const WRK_RUNS = Number(process.env.BENCH_RUNS ?? 5);
const STREAM_RUNS = Number(process.env.BENCH_RUNS ?? 3);
const WRK_SECONDS = Number(process.env.BENCH_WRK_SECONDS ?? 5);
/** `BENCH_PARTS=warm,cold` runs only those parts (and skips the 1 GiB upload without `stream`). */
const PARTS = new Set((process.env.BENCH_PARTS ?? 'warm,cold,stream').split(','));
const WRK_CONNECTIONS = 32;
const SMALL_BYTES = 256 * KIB;
/**
 * The warm part's object (`BENCH_WARM_BYTES`, default 256 KiB: answered from the reader's memory).
 * Above 1 MiB it is read from the reader's disk cache on every request, hashed again
 * (`storage.tracks.cache.verify_reads`): what "caches that stay honest" costs (docs/tracks.md).
 */
const WARM_BYTES = Number(process.env.BENCH_WARM_BYTES ?? SMALL_BYTES);
const BIG_BYTES = GIB;
const SEGMENT_BYTES = 8 * MIB;
const COLD_RUNS = 3;
const COLD_PER_RUN = 40;
const STREAM_CLIENTS = 8;

const GATEWAY_ENV = { ...UNREACHED_OBJECT_BUDGETS, TAPE_LOG_LEVEL: 'error' };

const print = (line: string) => process.stdout.write(`${line}\n`);
const fmt = (n: number, digits = 1) => n.toFixed(digits);
const verdict = (met: boolean) => (met ? 'met' : 'NOT met');

interface Uploaded {
  small: WrittenTrack;
  cold: WrittenTrack[];
  big?: WrittenTrack;
}

async function main(): Promise<void> {
  const work = mkdtempSync(join(tmpdir(), 'tape-s3-store-bench-'));
  const www = join(work, 'www');
  mkdirSync(www);
  chmodSync(work, 0o755); // nginx workers run as an unprivileged user
  let lab: S3StoreLab | undefined;
  try {
    const small = randomBytes(WARM_BYTES);
    writeFileSync(join(www, 'small.bin'), small);
    const bigPath = join(www, 'big.bin');
    if (PARTS.has('stream')) writeRandomFile(bigPath, BIG_BYTES);

    print('preparing: Ceph RGW, a writer gateway on it, uploads through the writer');
    lab = await startS3StoreLab({ ceph: { memstoreBytes: 4 * GIB }, env: GATEWAY_ENV });
    const uploaded = await upload(lab, small, bigPath);
    const reader = await lab.startReader();
    const nginx = await startNginx({ root: www, workDir: join(work, 'nginx') });
    try {
      if (PARTS.has('warm')) await warmSmall(reader, uploaded.small, nginx.url);
      if (PARTS.has('cold')) await coldSmall(lab, reader, uploaded.cold, work);
      if (uploaded.big) await streaming(reader, uploaded.big, nginx.url, nginx.pid);
    } finally {
      await nginx.stop();
    }
  } finally {
    await lab?.stop();
    rmSync(work, { recursive: true, force: true });
  }
}

async function upload(lab: S3StoreLab, small: Buffer, bigPath: string): Promise<Uploaded> {
  const client = new UploadClient(lab.writer.url, lab.writer.rpcUrl);
  try {
    const wallet = await client.fundedWallet();
    const tape = await client.createTape(wallet, BIG_BYTES + 128 * MIB, 1000);
    const started = Date.now();
    const store = (bytes: Buffer | string, type = 'application/octet-stream') =>
      client.store(wallet, tape, bytes, type, SEGMENT_BYTES);
    const smallTrack = await store(small);
    const cold = PARTS.has('cold')
      ? await uploadMany(client, wallet, tape, COLD_RUNS * COLD_PER_RUN)
      : [];
    const big = PARTS.has('stream') ? await store(bigPath, 'video/mp4') : undefined;
    print(
      `  uploaded one object of ${WARM_BYTES} bytes, ${cold.length} of 256 KiB${big ? ' and one of 1 GiB' : ''} in ${fmt((Date.now() - started) / 1000)} s`,
    );
    return { small: smallTrack, cold, big };
  } finally {
    client.close();
  }
}

async function uploadMany(
  client: UploadClient,
  wallet: Keypair,
  tape: TestTape,
  count: number,
): Promise<WrittenTrack[]> {
  const out: WrittenTrack[] = [];
  for (let i = 0; i < count; i += 8) {
    const batch = Array.from({ length: Math.min(8, count - i) }, () => randomBytes(SMALL_BYTES));
    out.push(
      ...(await Promise.all(
        batch.map((b) => client.store(wallet, tape, b, 'application/octet-stream', SEGMENT_BYTES)),
      )),
    );
  }
  return out;
}

async function warmSmall(reader: GatewayProcess, track: WrittenTrack, nginxUrl: string) {
  print(
    `\n1. warm reads of a ${WARM_BYTES}-byte object (cache.verify_reads ${process.env.TAPE__STORAGE__TRACKS__CACHE__VERIFY_READS ?? 'default: true'}; wrk, ${WRK_CONNECTIONS} connections, ${WRK_SECONDS} s per run, ${WRK_RUNS} interleaved runs)`,
  );
  const targets = {
    'reader (s3)': `${reader.url}/object/${track.address}`,
    nginx: `${nginxUrl}/small.bin`,
  };
  const runs: Record<string, number[]> = {};
  for (const url of Object.values(targets)) {
    const check = await timedGet(url, new http.Agent());
    if (check.status !== 200 || check.bytes !== WARM_BYTES)
      throw new Error(`${url}: ${check.status}`);
    await wrk(url, 1, WRK_CONNECTIONS); // warm-up
  }
  for (let run = 0; run < WRK_RUNS; run++) {
    const line: string[] = [];
    const order = Object.entries(targets);
    for (const [name, url] of run % 2 ? order.reverse() : order) {
      const result = await wrk(url, WRK_SECONDS, WRK_CONNECTIONS);
      if (result.non2xx > 0) throw new Error(`${name}: non-2xx answers during the run`);
      (runs[name] ??= []).push(result.requestsPerSec);
      line.push(`${name} ${fmt(result.requestsPerSec, 0)}`);
    }
    print(`  run ${run + 1}: ${line.join(', ')} req/s`);
  }
  for (const name of Object.keys(targets)) {
    const rps = median(runs[name]);
    print(
      `  ${`${name}:`.padEnd(13)} ${fmt(rps, 0)} req/s, ${fmt((rps * WARM_BYTES) / 1e9, 2)} GB/s (median)`,
    );
  }
  const ratio = median(runs['reader (s3)']) / median(runs.nginx);
  print(`  ratio: ${fmt(ratio, 2)}x nginx (goal >= 0.8x: ${verdict(ratio >= 0.8)})`);
}

async function coldSmall(
  lab: S3StoreLab,
  reader: GatewayProcess,
  tracks: WrittenTrack[],
  work: string,
) {
  print(
    `\n2. cold reads of 256 KiB objects (${COLD_RUNS} runs x ${COLD_PER_RUN} distinct objects, one request each, one keep-alive connection)`,
  );
  // Each reader is compared with the GET it sends itself, straight to RGW: the reader with keys
  // with the same SigV4-signed GET (the same signer and HTTP handler), an anonymous reader of the
  // public-read bucket with a plain unsigned GET; the AWS SDK's own GetObject beside them.
  const s3 = new S3Client({
    endpoint: lab.ceph.endpoint,
    region: 'us-east-1',
    forcePathStyle: true,
    credentials: { accessKeyId: lab.ceph.accessKey, secretAccessKey: lab.ceph.secretKey },
  });
  // A public-read bucket as docs/operator.md describes it (readers probe the bucket).
  await allowPublicRead(s3, lab.bucket);
  const anonymous = await lab.startReader({}, 'anonymous');
  // What any extra hop costs here, verifying nothing: nginx, and the smallest Node proxy, each
  // forwarding the plain GET to RGW (the floor under a reader, which also verifies).
  const nginxHop = await startNginx({
    root: work,
    workDir: join(work, 'nginx-hop'),
    workers: 1,
    proxyTo: lab.ceph.endpoint,
  });
  const nodeHop = await startNodePassThrough(lab.ceph.endpoint).catch(async (err: unknown) => {
    await nginxHop.stop();
    throw err;
  });
  try {
    const signedGet = signedRangedGet(
      Object.assign(new TrackS3Config(), {
        endpoint: lab.ceph.endpoint,
        bucket: lab.bucket,
        access_key_id: lab.ceph.accessKey,
        secret_access_key: lab.ceph.secretKey,
      }),
    );
    const agents = [reader, anonymous].map(
      () => new http.Agent({ keepAlive: true, maxSockets: 1 }),
    );
    const storeAgent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    const hopAgents = [nginxHop, nodeHop].map(
      () => new http.Agent({ keepAlive: true, maxSockets: 1 }),
    );
    const range = { range: `bytes=0-${SMALL_BYTES - 1}` };
    const peers = [
      'reader',
      'signed',
      'anonymous',
      'store',
      'nginxHop',
      'nodeHop',
      'sdk',
      'warm',
    ] as const;
    type Peer = (typeof peers)[number];
    const names: Record<Peer, string> = {
      reader: 'reader (keys)',
      signed: 'RGW, signed GET',
      anonymous: 'reader (anonymous)',
      store: 'RGW, plain GET',
      nginxHop: 'RGW through nginx',
      nodeHop: 'RGW through node:http',
      sdk: 'RGW via the SDK',
      warm: 'reader (keys), the same object again',
    };
    const p50 = Object.fromEntries(peers.map((p) => [p, [] as number[]])) as Record<Peer, number[]>;
    const timed = async (read: () => Promise<number>): Promise<number> => {
      const started = performance.now();
      const bytes = await read();
      if (bytes !== SMALL_BYTES) throw new Error(`answered ${bytes} bytes`);
      return performance.now() - started;
    };
    for (let run = 0; run < COLD_RUNS; run++) {
      const times = Object.fromEntries(peers.map((p) => [p, [] as number[]])) as Record<
        Peer,
        number[]
      >;
      for (const track of tracks.slice(run * COLD_PER_RUN, (run + 1) * COLD_PER_RUN)) {
        if (track.layout.kind !== 'blob') throw new Error('expected a blob');
        const urls = [reader, anonymous].map((r) => `${r.url}/object/${track.address}`);
        const name = `tracks/${commitmentToHex(track.layout.digest.commitment)}`;
        // The chain record (cached for minutes) is not what is measured: HEAD reads no bytes.
        for (const [i, url] of urls.entries()) await head(url, agents[i]);
        times.sdk.push(
          await timed(async () => {
            const out = await s3.send(
              new GetObjectCommand({ Bucket: lab.bucket, Key: name, Range: range.range }),
            );
            return (await out.Body!.transformToByteArray()).length;
          }),
        );
        times.signed.push(
          await timed(async () => {
            const out = await signedGet(name, 0, SMALL_BYTES - 1);
            let bytes = 0;
            for await (const piece of out.body) bytes += (piece as Buffer).length;
            return bytes;
          }),
        );
        const store = await timedGet(
          `${lab.ceph.endpoint}/${lab.bucket}/${name}`,
          storeAgent,
          range,
        );
        if (store.status !== 206 || store.bytes !== SMALL_BYTES)
          throw new Error(`RGW ${store.status}`);
        times.store.push(store.ms);
        for (const [i, hop] of (['nginxHop', 'nodeHop'] as const).entries()) {
          const via = [nginxHop, nodeHop][i];
          const got = await timedGet(`${via.url}/${lab.bucket}/${name}`, hopAgents[i], range);
          if (got.status !== 206 || got.bytes !== SMALL_BYTES)
            throw new Error(`${hop} ${got.status}`);
          times[hop].push(got.ms);
        }
        for (const [i, peer] of (['reader', 'anonymous'] as const).entries()) {
          const got = await timedGet(urls[i], agents[i]);
          if (got.status !== 200 || got.bytes !== SMALL_BYTES)
            throw new Error(`${peer} ${got.status}`);
          times[peer].push(got.ms);
        }
        // The gateway's own hop: the same request once the bytes are in its memory.
        const again = await timedGet(urls[0], agents[0]);
        if (again.status !== 200 || again.bytes !== SMALL_BYTES)
          throw new Error(`warm ${again.status}`);
        times.warm.push(again.ms);
      }
      for (const peer of peers) p50[peer].push(percentile(times[peer], 50));
      const show = (peer: Peer) =>
        `${names[peer]} ${fmt(percentile(times[peer], 50), 2)} ms (p99 ${fmt(percentile(times[peer], 99), 2)})`;
      print(`  run ${run + 1}: ${peers.map(show).join(', ')}`);
    }
    for (const agent of [...agents, storeAgent, ...hopAgents]) agent.destroy();
    s3.destroy();
    const m = (peer: Peer) => median(p50[peer]);
    print(
      `  p50 (median of runs): ${peers.map((p) => `${names[p]} ${fmt(m(p), 2)} ms`).join(', ')}`,
    );
    for (const [readerPeer, storePeer] of [
      ['reader', 'signed'],
      ['anonymous', 'store'],
    ] as const) {
      const ratio = m(readerPeer) / m(storePeer);
      print(
        `  ${names[readerPeer]} / ${names[storePeer]}: ${fmt(ratio, 2)}x (goal <= 1.3x: ${verdict(ratio <= 1.3)})`,
      );
    }
    print(
      `  reader (keys) / RGW via the SDK: ${fmt(m('reader') / m('sdk'), 2)}x; reader (keys) / RGW, plain GET: ${fmt(m('reader') / m('store'), 2)}x`,
    );
    print(
      `  one hop that verifies nothing, / RGW, plain GET: nginx ${fmt(m('nginxHop') / m('store'), 2)}x, node:http ${fmt(m('nodeHop') / m('store'), 2)}x (the floor under the goal's 1.3x on this machine)`,
    );
  } finally {
    await nginxHop.stop();
    await nodeHop.stop();
  }
}

function head(url: string, agent: http.Agent): Promise<void> {
  return new Promise<void>((resolve, reject) =>
    http
      .request(url, { method: 'HEAD', agent }, (res) => {
        res.resume();
        res.on('end', resolve);
      })
      .on('error', reject)
      .end(),
  );
}

async function streaming(
  reader: GatewayProcess,
  track: WrittenTrack,
  nginxUrl: string,
  nginxPid: number,
) {
  print(
    `\n3. ${STREAM_CLIENTS} clients each reading the 1 GiB streamed object at once (${STREAM_RUNS} interleaved runs)`,
  );
  const url = `${reader.url}/object/${track.address}`;
  const first = await timedGet(url, new http.Agent());
  if (first.status !== 200 || first.bytes !== BIG_BYTES)
    throw new Error(`cold read ${first.status}`);
  print(
    `  first (cold) read, one client, filling the reader's cache from RGW: ${fmt(first.ms / 1000, 2)} s, ${fmt(BIG_BYTES / 1e6 / first.ms, 2)} GB/s`,
  );
  const pid = reader.child.pid!;
  const targets = { 'reader (s3)': url, nginx: `${nginxUrl}/big.bin` };
  const pids: Record<string, number[]> = { 'reader (s3)': [pid], nginx: [nginxPid] };
  const runs: Record<string, number[]> = {};
  /** Server CPU seconds per GiB sent: steadier than GB/s on a shared machine. */
  const cpu: Record<string, number[]> = {};
  for (let run = 0; run < STREAM_RUNS; run++) {
    const line: string[] = [];
    const order = Object.entries(targets);
    for (const [name, target] of run % 2 ? order.reverse() : order) {
      const started = Date.now();
      const ticks = cpuTicks(pids[name]);
      const results = await Promise.all(
        Array.from({ length: STREAM_CLIENTS }, () => timedGet(target, new http.Agent())),
      );
      const seconds = (Date.now() - started) / 1000;
      const cpuSeconds = (cpuTicks(pids[name]) - ticks) / CLOCK_TICKS_PER_SEC;
      (cpu[name] ??= []).push(cpuSeconds / STREAM_CLIENTS);
      if (results.some((r) => r.status !== 200 || r.bytes !== BIG_BYTES)) {
        throw new Error(`${name}: incomplete stream`);
      }
      const gbps = (STREAM_CLIENTS * BIG_BYTES) / 1e9 / seconds;
      (runs[name] ??= []).push(gbps);
      line.push(`${name} ${fmt(gbps, 2)} GB/s (${fmt(cpuSeconds / STREAM_CLIENTS, 2)} CPU s/GiB)`);
    }
    print(`  run ${run + 1}: ${line.join(', ')}`);
  }
  for (const name of Object.keys(targets)) {
    print(
      `  ${`${name}:`.padEnd(13)} ${fmt(median(runs[name]), 2)} GB/s aggregate, ${fmt(median(cpu[name]), 2)} server CPU s per GiB sent (medians)`,
    );
  }
  const ratio = median(runs['reader (s3)']) / median(runs.nginx);
  print(`  ratio: ${fmt(ratio, 2)}x nginx (goal >= 0.5x: ${verdict(ratio >= 0.5)})`);
  print(`  reader peak RSS (VmHWM, whole run): ${fmt(procStatusBytes(pid, 'VmHWM') / MIB)} MiB`);
}

// web3.js's confirmTransaction checks the signature status in a promise nobody awaits: a
// connection dropped at that moment must not end the run (the confirmation still arrives).
process.on('unhandledRejection', (err) => {
  process.stdout.write(`  (ignored: ${(err as Error).message})\n`);
});

main().then(
  () => process.exit(0),
  (err: unknown) => {
    process.stderr.write(`s3-store benchmark failed: ${(err as Error).stack ?? String(err)}\n`);
    process.exit(1);
  },
);
