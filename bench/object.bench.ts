/**
 * `npm run bench -- object`: the object route against its goals, on the real gateway process
 * (`node dist/main.js`, local network embedded), in one run:
 *
 * 1. full reads of a 256 KiB object, gateway vs nginx serving the same bytes from disk (wrk;
 *    goal: gateway >= 0.8x nginx);
 * 2. a 1 MiB range in the middle of a 1 GiB streamed object (goal: p50 < 20 ms; store bytes read
 *    per range <= 2 segments, from the TrackStore's own counters);
 * 3. peak RSS (VmHWM) of a fresh gateway process while 8 clients stream the whole 1 GiB object
 *    (goal < 200 MB).
 *
 * Figures are medians of BENCH_RUNS runs (default 5 for throughput, runs of the three servers
 * interleaved; 3 for the others). nginx is measured as usually configured (`worker_processes
 * auto`) and, for reference, with one worker like the gateway's one event loop. Metering stays on
 * (with limits no run can reach), so its cost is in the figures.
 */
import http from 'node:http';
import { randomBytes } from 'node:crypto';
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { percentile, timedGet, wrk, writeRandomFile } from './support/object-bench-tools';
import { UNREACHED_OBJECT_BUDGETS } from './support/bench-gateway';
import { startNginx } from './support/nginx';
import { procStatusBytes } from '../test/support/processes/proc-status';
import { median } from './wrk-runner';
import { metricsText, requiredSample } from '../test/support/clients/metrics-text';
import type { GatewayProcess } from '../test/support/processes/gateway';
import { startObjectGateway } from '../test/support/labs/object-fixture';
import { UploadClient, WrittenTrack } from '../test/support/clients/upload-client';

const RUNS = Number(process.env.BENCH_RUNS ?? 3);
/** Throughput varies most on a shared machine: more, interleaved runs. */
const THROUGHPUT_RUNS = Number(process.env.BENCH_RUNS ?? 5);
const KIB = 1024;
const MIB = 1024 * KIB;
const SMALL_BYTES = 256 * KIB;
const BIG_BYTES = 1024 * MIB;
const SEGMENT_BYTES = 8 * MIB;
const WRK_SECONDS = Number(process.env.BENCH_WRK_SECONDS ?? 5);
const WRK_CONNECTIONS = 32;
const RANGE_REQUESTS = 60;
const STREAM_CLIENTS = 8;

const print = (line: string) => process.stdout.write(`${line}\n`);
const fmt = (n: number, digits = 1) => n.toFixed(digits);

async function main(): Promise<void> {
  const work = mkdtempSync(join(tmpdir(), 'tape-object-bench-'));
  const dataDir = join(work, 'gateway');
  const www = join(work, 'www');
  mkdirSync(dataDir);
  mkdirSync(www);
  chmodSync(work, 0o755); // nginx workers run as an unprivileged user
  try {
    const small = randomBytes(SMALL_BYTES);
    writeFileSync(join(www, 'small.bin'), small);
    const bigPath = join(work, 'big.bin');
    writeRandomFile(bigPath, BIG_BYTES);

    print(`preparing: uploading 256 KiB and 1 GiB (8 MiB segments) objects through the gateway`);
    const { smallTrack, bigTrack } = await upload(dataDir, small, bigPath);
    rmSync(bigPath);

    const gw = await gateway(dataDir);
    try {
      await throughput(gw, smallTrack, www, work);
      await rangeLatency(gw, bigTrack);
    } finally {
      await gw.stop();
    }
    await peakRss(dataDir, bigTrack);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

function gateway(dataDir: string): Promise<GatewayProcess> {
  return startObjectGateway({ dataDir, env: UNREACHED_OBJECT_BUDGETS, logLevel: 'error' });
}

async function upload(dataDir: string, small: Buffer, bigPath: string) {
  const gw = await gateway(dataDir);
  const client = new UploadClient(gw.url, gw.rpcUrl);
  try {
    const wallet = await client.fundedWallet();
    const tape = await client.createTape(wallet, BIG_BYTES + 16 * MIB, 1000);
    const started = Date.now();
    const smallTrack = await client.store(
      wallet,
      tape,
      small,
      'application/octet-stream',
      SEGMENT_BYTES,
    );
    const bigTrack = await client.store(wallet, tape, bigPath, 'video/mp4', SEGMENT_BYTES);
    print(`  uploaded and certified in ${fmt((Date.now() - started) / 1000)} s`);
    return { smallTrack, bigTrack };
  } finally {
    client.close();
    await gw.stop();
  }
}

async function throughput(gw: GatewayProcess, track: WrittenTrack, www: string, work: string) {
  print(
    `\n1. full reads of a 256 KiB object (wrk, ${WRK_CONNECTIONS} connections, ${WRK_SECONDS} s per run, ${THROUGHPUT_RUNS} interleaved runs)`,
  );
  const nginx = await startNginx({ root: www, workDir: join(work, 'nginx') });
  const nginx1 = await startNginx({ root: www, workDir: join(work, 'nginx-1'), workers: 1 });
  const targets = {
    gateway: `${gw.url}/object/${track.address}`,
    nginx: `${nginx.url}/small.bin`,
    'nginx, 1 worker': `${nginx1.url}/small.bin`,
  };
  const runs: Record<string, number[]> = {};
  try {
    for (const url of Object.values(targets)) {
      const check = await timedGet(url, new http.Agent());
      if (check.status !== 200 || check.bytes !== SMALL_BYTES) {
        throw new Error(`${url}: ${check.status}`);
      }
      await wrk(url, 1, WRK_CONNECTIONS); // warm-up
    }
    for (let run = 0; run < THROUGHPUT_RUNS; run++) {
      const line: string[] = [];
      for (const [name, url] of Object.entries(targets)) {
        const result = await wrk(url, WRK_SECONDS, WRK_CONNECTIONS);
        if (result.non2xx > 0) throw new Error(`${name}: non-2xx answers during the run`);
        (runs[name] ??= []).push(result.requestsPerSec);
        line.push(`${name} ${fmt(result.requestsPerSec, 0)}`);
      }
      print(`  run ${run + 1}: ${line.join(', ')} req/s`);
    }
  } finally {
    await nginx.stop();
    await nginx1.stop();
  }
  const gbps = (rps: number) => fmt((rps * SMALL_BYTES) / 1e9, 2);
  for (const name of Object.keys(targets)) {
    const rps = median(runs[name]);
    print(`  ${`${name}:`.padEnd(17)} ${fmt(rps, 0)} req/s, ${gbps(rps)} GB/s (median)`);
  }
  const ratio = median(runs.gateway) / median(runs.nginx);
  const ratio1 = median(runs.gateway) / median(runs['nginx, 1 worker']);
  print(
    `  ratio:            ${fmt(ratio, 2)}x nginx (goal >= 0.8x: ${ratio >= 0.8 ? 'met' : 'NOT met'}); ${fmt(ratio1, 2)}x nginx with 1 worker`,
  );
}

async function rangeLatency(gw: GatewayProcess, track: WrittenTrack) {
  print(
    `\n2. a 1 MiB range in the middle of the 1 GiB streamed object (${RANGE_REQUESTS} requests x ${RUNS} runs)`,
  );
  const url = `${gw.url}/object/${track.address}`;
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  // Straddles the segment boundary at 512 MiB (two segments touched) and starts and ends inside
  // chunks (each end costs a whole 64 KiB chunk read to verify): the worst case.
  const start = BIG_BYTES / 2 - MIB / 2 + 12_345;
  const range = { range: `bytes=${start}-${start + MIB - 1}` };
  await timedGet(url, agent, { range: 'bytes=0-0' }); // the manifest is loaded once, then cached
  const p50s: number[] = [];
  const readPerRange: number[] = [];
  for (let run = 0; run < RUNS; run++) {
    const before = await storeBytesRead(gw);
    const times: number[] = [];
    for (let i = 0; i < RANGE_REQUESTS; i++) {
      const res = await timedGet(url, agent, range);
      if (res.status !== 206 || res.bytes !== MIB) throw new Error(`range answered ${res.status}`);
      times.push(res.ms);
    }
    const after = await storeBytesRead(gw);
    const perRange = (after - before) / RANGE_REQUESTS;
    p50s.push(percentile(times, 50));
    readPerRange.push(perRange);
    print(
      `  run ${run + 1}: p50 ${fmt(percentile(times, 50), 2)} ms, p99 ${fmt(percentile(times, 99), 2)} ms, store bytes read per range ${fmt(perRange, 0)}`,
    );
  }
  agent.destroy();
  const p50 = median(p50s);
  const read = median(readPerRange);
  print(`  p50 latency: ${fmt(p50, 2)} ms (goal < 20 ms: ${p50 < 20 ? 'met' : 'NOT met'})`);
  print(
    `  store bytes read per 1 MiB range: ${fmt(read, 0)} = ${fmt(read / SEGMENT_BYTES, 3)} segments ` +
      `(goal <= 2 segments: ${read <= 2 * SEGMENT_BYTES ? 'met' : 'NOT met'})`,
  );
}

/** The track store's bytes read since start, from the gateway's `/metrics` (absent: a failure). */
async function storeBytesRead(gw: GatewayProcess): Promise<number> {
  return requiredSample(await metricsText(gw), 'tape_track_store_read_bytes_total');
}

async function peakRss(dataDir: string, track: WrittenTrack) {
  print(
    `\n3. peak RSS while ${STREAM_CLIENTS} clients stream the whole 1 GiB object (fresh process per run)`,
  );
  const peaks: number[] = [];
  for (let run = 0; run < RUNS; run++) {
    const gw = await gateway(dataDir);
    try {
      const url = `${gw.url}/object/${track.address}`;
      await timedGet(url, new http.Agent(), { range: 'bytes=0-0' });
      const idle = procStatusBytes(gw.pid, 'VmRSS');
      const started = Date.now();
      const results = await Promise.all(
        Array.from({ length: STREAM_CLIENTS }, () => timedGet(url, new http.Agent())),
      );
      const seconds = (Date.now() - started) / 1000;
      if (results.some((r) => r.status !== 200 || r.bytes !== BIG_BYTES))
        throw new Error('incomplete stream');
      const peak = procStatusBytes(gw.pid, 'VmHWM');
      peaks.push(peak);
      print(
        `  run ${run + 1}: RSS idle ${fmt(idle / MIB)} MiB, peak ${fmt(peak / MIB)} MiB; ` +
          `${STREAM_CLIENTS} GiB in ${fmt(seconds)} s (${fmt((STREAM_CLIENTS * BIG_BYTES) / 1e9 / seconds, 2)} GB/s)`,
      );
    } finally {
      await gw.stop();
    }
  }
  const peak = median(peaks);
  print(
    `  peak RSS: ${fmt(peak / 1e6)} MB (median; goal < 200 MB: ${peak < 200e6 ? 'met' : 'NOT met'})`,
  );
}

main().catch((err: unknown) => {
  process.stderr.write(`object benchmark failed: ${(err as Error).stack ?? String(err)}\n`);
  process.exit(1);
});
