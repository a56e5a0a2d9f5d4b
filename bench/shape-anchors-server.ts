/**
 * The plain HTTP server of `shape-anchors.bench.ts`, in a process of its own (run with
 * `--expose-gc`). MODE: `clean` (started and measured), `primed` (first answers 240 requests of
 * its own with eight full collections between batches of 30, as a gateway idles through startup
 * and health checks), `anchored` (primed, with `src/http/shape-anchors.ts` in place as the
 * gateway has it). Prints `ready <port>`.
 */
import { Agent, createServer, get, IncomingMessage, ServerResponse } from 'node:http';
import { AddressInfo } from 'node:net';
import { anchorTickShape, ExchangeAnchor } from '../src/http/shape-anchors';

const mode = process.env.MODE ?? 'clean';
const anchored = mode === 'anchored';
if (anchored) anchorTickShape();
const anchor = new ExchangeAnchor();

/** The site page's 304 headers. */
const HEADERS = {
  etag: '"53b2bf8842344be61bff2a91ddce6ffec99b9224d9a0c7b1b5a9faf48a5f2010"',
  'cache-control': 'public, max-age=60, must-revalidate',
  'x-content-type-options': 'nosniff',
  vary: 'Accept-Encoding',
};

const server = createServer((req: IncomingMessage, res: ServerResponse) => {
  res.writeHead(304, HEADERS);
  res.end();
  if (anchored) anchor.hold(req, res, 304);
});

function once(port: number, agent: Agent): Promise<void> {
  return new Promise((resolve, reject) => {
    get({ host: '127.0.0.1', port, path: '/', agent }, (res) => {
      res.resume();
      res.on('end', resolve);
    }).on('error', reject);
  });
}

async function main(): Promise<void> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const gc = (globalThis as { gc?: () => void }).gc;
  if (mode !== 'clean') {
    if (gc === undefined) throw new Error('run with --expose-gc');
    for (let round = 0; round < 8; round++) {
      const agent = new Agent({ keepAlive: true });
      for (let i = 0; i < 30; i++) await once(port, agent);
      agent.destroy();
      await new Promise((resolve) => setTimeout(resolve, 50));
      gc();
    }
  }
  process.stdout.write(`ready ${port}\n`);
}

main().catch((err: unknown) => {
  process.stderr.write(`${String(err)}\n`);
  process.exit(1);
});
