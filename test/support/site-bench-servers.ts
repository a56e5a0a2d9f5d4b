import { ChildProcess, spawn } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from './free-port';
import { REPO_ROOT } from './site-gateway';
import { GATEWAY_NODE_FLAGS } from '../../src/node-flags';

/**
 * The reference servers of bench/site.bench.ts, each in its own process on a free loopback
 * port: nginx serving a directory, a bare Fastify handler answering from memory, and a plain
 * node:http handler answering with the site's own headers.
 */

/** nginx on a free port serving `root`, with the site's headers added to its own ETag handling. */
export async function startNginx(
  root: string,
  headers: Record<string, string>,
): Promise<{ port: number; child: ChildProcess; dir: string }> {
  const dir = mkdtempSync(join(tmpdir(), 'bench-nginx-'));
  chmodSync(dir, 0o755);
  for (const sub of ['logs', 'tmp']) mkdirSync(join(dir, sub));
  const port = await freePort();
  const addHeaders = Object.entries(headers)
    .map(([name, value]) => `      add_header ${name} "${value.replace(/"/g, '\\"')}" always;`)
    .join('\n');
  const conf = `
worker_processes 1;
daemon off;
pid ${dir}/nginx.pid;
error_log ${dir}/logs/error.log warn;
events { worker_connections 4096; }
http {
  access_log off;
  sendfile on;
  tcp_nopush on;
  keepalive_requests 1000000;
  open_file_cache max=100 inactive=60s;
  client_body_temp_path ${dir}/tmp/body;
  proxy_temp_path ${dir}/tmp/proxy;
  fastcgi_temp_path ${dir}/tmp/fastcgi;
  uwsgi_temp_path ${dir}/tmp/uwsgi;
  scgi_temp_path ${dir}/tmp/scgi;
  types { text/html html; }
  charset utf-8;
  server {
    listen 127.0.0.1:${port};
    root ${root};
    location / {
${addHeaders}
    }
  }
}
`;
  writeFileSync(join(dir, 'nginx.conf'), conf);
  const child = spawn(
    '/usr/sbin/nginx',
    ['-p', dir, '-c', join(dir, 'nginx.conf'), '-g', 'user root;'],
    {
      stdio: ['ignore', 'ignore', 'pipe'],
    },
  );
  let stderr = '';
  child.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
  await waitUntilServing(`http://127.0.0.1:${port}/index.html`, child, () => stderr);
  return { port, child, dir };
}

/**
 * A bare Fastify app answering the page from memory with exactly the headers the site sent
 * (RateLimit included, with the values of one answer), and its 304 with the site's 304 headers
 * when If-None-Match matches: the same bytes on the wire as the site, so the ratio measures
 * the work behind them.
 */
export async function startBareFastify(
  page: Buffer,
  etag: string,
  headers200: Record<string, string>,
  headers304: Record<string, string>,
): Promise<{ port: number; child: ChildProcess }> {
  const script = `
const fastify = require('fastify')();
const page = Buffer.from(process.env.PAGE_B64, 'base64');
const ok = JSON.parse(process.env.HEADERS_200);
const notModified = JSON.parse(process.env.HEADERS_304);
const etag = process.env.ETAG;
fastify.get('/', (req, reply) => {
  if (req.headers['if-none-match'] === etag) {
    return reply.code(304).headers(notModified).send();
  }
  reply.headers(ok).send(page);
});
fastify.listen({ port: Number(process.env.PORT), host: '127.0.0.1' }).then(() => process.stdout.write('ready\\n'));
process.on('SIGTERM', () => process.exit(0));
`;
  return startScriptServer(script, pageEnv(page, etag, headers200, headers304));
}

/**
 * The floor under the site route: a plain `node:http` handler in its own process answering from
 * memory with exactly the headers the gateway sent (RateLimit headers included, with the values
 * of one answer), and its 304 with the gateway's 304 headers: what the page costs Node with no
 * routing, metering or lookup at all.
 */
export async function startPlainNode(
  page: Buffer,
  etag: string,
  headers200: Record<string, string>,
  headers304: Record<string, string>,
): Promise<{ port: number; child: ChildProcess }> {
  const script = `
const http = require('node:http');
const page = Buffer.from(process.env.PAGE_B64, 'base64');
const flat = (headers) => Object.entries(headers).flat();
const ok = flat(JSON.parse(process.env.HEADERS_200));
const notModified = flat(JSON.parse(process.env.HEADERS_304));
const etag = process.env.ETAG;
http.createServer((req, res) => {
  if (req.headers['if-none-match'] === etag) {
    res.writeHead(304, notModified);
    res.end();
    return;
  }
  res.writeHead(200, ok);
  res.end(page);
}).listen(Number(process.env.PORT), '127.0.0.1', () => process.stdout.write('ready\\n'));
process.on('SIGTERM', () => process.exit(0));
`;
  return startScriptServer(script, pageEnv(page, etag, headers200, headers304));
}

/** The page, its ETag and the two header sets, as the reference servers' environment. */
function pageEnv(
  page: Buffer,
  etag: string,
  headers200: Record<string, string>,
  headers304: Record<string, string>,
): Record<string, string> {
  return {
    PAGE_B64: page.toString('base64'),
    ETAG: etag,
    HEADERS_200: JSON.stringify(headers200),
    HEADERS_304: JSON.stringify(headers304),
  };
}

/** `node -e script` with the gateway's flags on a free port (env PORT), once it answers `/`. */
async function startScriptServer(
  script: string,
  env: Record<string, string>,
): Promise<{ port: number; child: ChildProcess }> {
  const port = await freePort();
  const child = spawn(process.execPath, [...GATEWAY_NODE_FLAGS, '-e', script], {
    cwd: REPO_ROOT,
    env: { ...process.env, ...env, PORT: String(port) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
  await waitUntilServing(`http://127.0.0.1:${port}/`, child, () => stderr);
  return { port, child };
}

async function waitUntilServing(
  url: string,
  child: ChildProcess,
  logs: () => string,
): Promise<void> {
  const deadline = Date.now() + 20_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null)
      throw new Error(`${url}: server exited (${child.exitCode}): ${logs()}`);
    try {
      if ((await fetch(url)).status === 200) return;
    } catch {
      // not yet
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`${url}: not serving after 20 s: ${logs()}`);
}
