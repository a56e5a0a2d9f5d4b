import type { ChildProcess } from 'node:child_process';
import { freePort } from '../../test/support/processes/free-port';
import { spawnNodeChild } from '../../test/support/processes/node-child';
import { REPO_ROOT } from '../../test/support/processes/gateway';
import { GATEWAY_NODE_FLAGS } from '../../src/node-flags';

/**
 * The reference servers of bench/site.bench.ts, each in its own process on a free loopback
 * port: a bare Fastify handler answering from memory and a plain node:http handler answering
 * with the site's own headers (nginx, the third, is bench/support/nginx.ts).
 */

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
