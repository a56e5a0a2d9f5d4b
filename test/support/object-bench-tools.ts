import { ChildProcess, spawn } from 'node:child_process';
import { randomFillSync } from 'node:crypto';
import { closeSync, mkdirSync, openSync, readFileSync, writeFileSync, writeSync } from 'node:fs';
import http from 'node:http';
import { join } from 'node:path';
import { freePort } from './free-port';

/** Tools of the object benchmark (bench/object.bench.ts): nginx, wrk, /proc and HTTP timing. */

export interface Nginx {
  url: string;
  pid: number;
  stop(): Promise<void>;
}

/**
 * nginx in the foreground with a temporary config serving `root` on a free loopback port, set
 * up as a static file server is usually set up (sendfile, keep-alive, no access log); with
 * `proxyTo`, a reverse proxy to that origin instead, as one is usually set up (keep-alive
 * upstream connections, HTTP/1.1, buffering on).
 */
export async function startNginx(
  root: string,
  workDir: string,
  workers: 'auto' | number = 'auto',
  proxyTo?: string,
): Promise<Nginx> {
  const port = await freePort();
  const proxied = proxyTo
    ? `
  upstream origin { server ${new URL(proxyTo).host}; keepalive 16; }`
    : '';
  const location = proxyTo
    ? `
    location / {
      proxy_pass http://origin;
      proxy_http_version 1.1;
      proxy_set_header Connection "";
      proxy_set_header Host ${new URL(proxyTo).host};
    }`
    : '';
  mkdirSync(join(workDir, 'tmp'), { recursive: true });
  const temp = (name: string) => `${name}_temp_path ${join(workDir, 'tmp', name)};`;
  const conf = join(workDir, 'nginx.conf');
  writeFileSync(
    conf,
    `worker_processes ${workers};
daemon off;
pid ${join(workDir, 'nginx.pid')};
error_log ${join(workDir, 'error.log')} warn;
events { worker_connections 4096; }
http {
  access_log off;
  sendfile on;
  tcp_nopush on;
  keepalive_requests 1000000;
  default_type application/octet-stream;
  ${['client_body', 'proxy', 'fastcgi', 'uwsgi', 'scgi'].map(temp).join('\n  ')}${proxied}
  server {
    listen 127.0.0.1:${port};
    root ${root};${location}
  }
}
`,
  );
  const child = spawn('nginx', ['-c', conf, '-p', workDir], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const url = `http://127.0.0.1:${port}`;
  for (let i = 0; ; i++) {
    if (child.exitCode !== null)
      throw new Error(`nginx exited: ${readFileSync(join(workDir, 'error.log'), 'utf8')}`);
    try {
      await fetch(url);
      break;
    } catch {
      if (i > 100) throw new Error('nginx did not start');
      await new Promise((r) => setTimeout(r, 50));
    }
  }
  return {
    url,
    pid: child.pid!,
    stop: async () => {
      stopChild(child, 'SIGQUIT');
      await exited;
    },
  };
}

function stopChild(child: ChildProcess, signal: NodeJS.Signals): void {
  if (child.exitCode === null && child.signalCode === null) process.kill(child.pid!, signal);
}

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
      const rps = /Requests\/sec:\s+([\d.]+)/.exec(out)?.[1];
      if (code !== 0 || !rps) return reject(new Error(`wrk failed (${code}):\n${out}`));
      const non2xx = Number(/Non-2xx or 3xx responses:\s+(\d+)/.exec(out)?.[1] ?? 0);
      const errors = /Socket errors: (.+)/.exec(out)?.[1];
      if (errors) process.stdout.write(`  (wrk socket errors: ${errors})\n`);
      resolve({ requestsPerSec: Number(rps), non2xx });
    });
  });
}

/** A field of /proc/<pid>/status in bytes (VmRSS, VmHWM). */
export function procStatusBytes(pid: number, field: 'VmRSS' | 'VmHWM'): number {
  const kb = new RegExp(`${field}:\\s+(\\d+) kB`).exec(
    readFileSync(`/proc/${pid}/status`, 'utf8'),
  )?.[1];
  if (kb === undefined) throw new Error(`no ${field} for ${pid}`);
  return Number(kb) * 1024;
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

export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
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
