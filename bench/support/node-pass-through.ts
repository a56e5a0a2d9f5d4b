import { freePort } from '../../test/support/processes/free-port';
import { spawnNodeChild } from '../../test/support/processes/node-child';
import { GATEWAY_NODE_FLAGS } from '../../src/node-flags';

/** A process the benchmark talks to and stops. */
export interface PassThrough {
  url: string;
  pid: number;
  stop(): Promise<void>;
}

/**
 * The smallest reverse proxy Node makes, in its own process: a plain `node:http` server that
 * forwards each request's method, path and Range to `origin` over keep-alive connections and
 * pipes the answer back, verifying nothing (bench/s3-store.bench.ts: what one Node hop costs a
 * cold read on this machine, beside nginx making the same hop).
 */
export async function startNodePassThrough(origin: string): Promise<PassThrough> {
  const port = await freePort();
  const script = `
const http = require('node:http');
const origin = new URL(process.env.ORIGIN);
const agent = new http.Agent({ keepAlive: true });
http.createServer((req, res) => {
  const headers = req.headers.range ? { range: req.headers.range } : {};
  const upstream = http.request(
    { host: origin.hostname, port: origin.port, method: req.method, path: req.url, headers, agent },
    (answer) => {
      const out = {};
      for (const name of ['content-length', 'content-range', 'content-type', 'etag']) {
        if (answer.headers[name] !== undefined) out[name] = answer.headers[name];
      }
      res.writeHead(answer.statusCode, out);
      answer.pipe(res);
    },
  );
  upstream.on('error', () => res.destroy());
  upstream.end();
}).listen(Number(process.env.PORT), '127.0.0.1', () => process.stdout.write('ready\\n'));
process.on('SIGTERM', () => process.exit(0));
`;
  const proxy = spawnNodeChild({
    name: 'pass-through proxy',
    nodeFlags: GATEWAY_NODE_FLAGS,
    entry: { code: script },
    env: { ...process.env, ORIGIN: origin, PORT: String(port) },
  });
  await proxy.waitForLine(/^ready$/m, 20_000);
  return {
    url: `http://127.0.0.1:${port}`,
    pid: proxy.pid,
    stop: async () => {
      await proxy.stop();
    },
  };
}
