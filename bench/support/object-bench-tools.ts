import { spawn } from 'node:child_process';
import { randomFillSync } from 'node:crypto';
import { closeSync, openSync, writeSync } from 'node:fs';
import http from 'node:http';

/**
 * Tools of the object benchmarks (bench/object.bench.ts, bench/s3-store.bench.ts): wrk with
 * several threads, HTTP timing, percentiles and random files.
 */

export interface WrkResult {
  requestsPerSec: number;
  non2xx: number;
}

/** `wrk` against one URL; its own process, so load generation costs the bench nothing. */
export function wrk(
  url: string,
  seconds: number,
  connections: number,
  threads = 1,
): Promise<WrkResult> {
  return new Promise((resolve, reject) => {
    const child = spawn('wrk', [`-t${threads}`, `-c${connections}`, `-d${seconds}s`, url], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (out += d.toString()));
    child.once('error', reject);
    child.once('exit', (code) => {
      // A figure wrk did not print, or no request answered, is a failed run, not a zero.
      const rps = Number(/Requests\/sec:\s+([\d.]+)/.exec(out)?.[1] ?? NaN);
      const requests = Number(/(\d+) requests in/.exec(out)?.[1] ?? NaN);
      if (code !== 0 || !(rps > 0) || !(requests > 0)) {
        return reject(new Error(`wrk failed or measured no requests (${code}):\n${out}`));
      }
      const non2xx = Number(/Non-2xx or 3xx responses:\s+(\d+)/.exec(out)?.[1] ?? 0);
      const errors = /Socket errors: (.+)/.exec(out)?.[1];
      if (errors) process.stdout.write(`  (wrk socket errors: ${errors})\n`);
      resolve({ requestsPerSec: rps, non2xx });
    });
  });
}

/** One GET on a keep-alive agent: status, bytes received (discarded) and milliseconds taken. */
export function timedGet(
  url: string,
  agent: http.Agent,
  headers: Record<string, string> = {},
): Promise<{ status: number; bytes: number; ms: number }> {
  const started = process.hrtime.bigint();
  return new Promise((resolve, reject) => {
    const req = http.get(url, { agent, headers }, (res) => {
      let bytes = 0;
      res.on('data', (d: Buffer) => (bytes += d.length));
      res.on('end', () =>
        resolve({
          status: res.statusCode ?? 0,
          bytes,
          ms: Number(process.hrtime.bigint() - started) / 1e6,
        }),
      );
      res.on('error', reject);
    });
    req.on('error', reject);
  });
}

export function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

/** A file of random bytes (random, so no two segments share a commitment), written in blocks. */
export function writeRandomFile(path: string, size: number): void {
  const block = Buffer.allocUnsafe(4 * 1024 * 1024);
  const fd = openSync(path, 'w');
  try {
    for (let written = 0; written < size; written += block.length) {
      randomFillSync(block);
      writeSync(fd, block, 0, Math.min(block.length, size - written));
    }
  } finally {
    closeSync(fd);
  }
}
