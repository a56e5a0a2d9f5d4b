import { ChildProcess, spawn } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '../../test/support/free-port';
import { spawnNodeChild } from '../../test/support/node-child';
import { REPO_ROOT } from '../../test/support/gateway-process';
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

/** What the reference servers answer: the site's page, its ETag, and its 200 and 304 headers. */
export interface PageAnswers {
  page: Buffer;
  etag: string;
  /** Every header of the site's 200 (RateLimit included, with the values of one answer). */
  headers200: Record<string, string>;
  /** Every header of the site's 304. */
  headers304: Record<string, string>;
}

/** What both reference scripts start with: the answers, read from their environment. */
const READ_ANSWERS = `
const page = Buffer.from(process.env.PAGE_B64, 'base64');
const etag = process.env.ETAG;
const ok = JSON.parse(process.env.HEADERS_200);
const notModified = JSON.parse(process.env.HEADERS_304);
process.on('SIGTERM', () => process.exit(0));
`;

/**
 * A bare Fastify app answering the page from memory with exactly the headers the site sent, and
 * its 304 with the site's 304 headers when If-None-Match matches: the same bytes on the wire as
 * the site, so the ratio measures the work behind them.
 */
export async function startBareFastify(answers: PageAnswers): Promise<ScriptServer> {
  return startPageServer(
    'bare Fastify',
    `
const fastify = require('fastify')();
fastify.get('/', (req, reply) => {
  if (req.headers['if-none-match'] === etag) {
    return reply.code(304).headers(notModified).send();
  }
  reply.headers(ok).send(page);
});
fastify.listen({ port: Number(process.env.PORT), host: '127.0.0.1' });
`,
    answers,
  );
}

/**
 * The floor under the site route: a plain `node:http` handler answering the same from memory:
 * what the page costs Node with no routing, metering or lookup at all.
 */
export async function startPlainNode(answers: PageAnswers): Promise<ScriptServer> {
  return startPageServer(
    'node:http floor',
    `
const http = require('node:http');
const flat = (headers) => Object.entries(headers).flat();
const okList = flat(ok);
const notModifiedList = flat(notModified);
http.createServer((req, res) => {
  if (req.headers['if-none-match'] === etag) {
    res.writeHead(304, notModifiedList);
    res.end();
    return;
  }
  res.writeHead(200, okList);
  res.end(page);
}).listen(Number(process.env.PORT), '127.0.0.1');
`,
    answers,
  );
}

export interface ScriptServer {
  port: number;
  child: ChildProcess;
}

/**
 * `node -e` of the answers' preamble and `handler` with the gateway's flags, through the
 * harness's one child launcher, on a free port (env PORT), once it answers `/`.
 */
async function startPageServer(
  name: string,
  handler: string,
  answers: PageAnswers,
): Promise<ScriptServer> {
  const port = await freePort();
  const server = spawnNodeChild({
    name,
    nodeFlags: GATEWAY_NODE_FLAGS,
    entry: { code: READ_ANSWERS + handler },
    cwd: REPO_ROOT,
    env: {
      ...process.env,
      PORT: String(port),
      PAGE_B64: answers.page.toString('base64'),
      ETAG: answers.etag,
      HEADERS_200: JSON.stringify(answers.headers200),
      HEADERS_304: JSON.stringify(answers.headers304),
    },
  });
  await server.waitForHttp(`http://127.0.0.1:${port}/`, 20_000);
  return { port, child: server.child };
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
