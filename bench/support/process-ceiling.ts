/**
 * The gateway's own ceiling for bench/site.bench.ts, preloaded into a reader gateway with
 * `node -r` (never part of the product): once the gateway listens, the first thing its request
 * listener does for the benchmark's page is to answer it from memory with the bytes the site
 * sent, exactly as the `node:http` floor does. Every other request goes on to the gateway.
 *
 * So it measures what no site implementation inside this process can beat: the same Node, the
 * same listener and socket settings, the same heap (Nest, web3.js, the chain and track clients)
 * and the same background work, with no routing, metering, lookup or observation. The floor
 * against it is what the process costs; the site against it is what the site's own work costs.
 *
 * Environment (set by the benchmark): TAPE_CEILING_HOST (the site's Host header: only requests
 * with it are answered here), TAPE_CEILING_ETAG, TAPE_CEILING_PAGE_B64, TAPE_CEILING_HEADERS_200
 * and TAPE_CEILING_HEADERS_304 (JSON objects of the site's headers).
 */
import { IncomingMessage, Server, ServerResponse } from 'node:http';

type Listener = (this: Server, req: IncomingMessage, res: ServerResponse) => void;

const host = process.env.TAPE_CEILING_HOST;
if (host === undefined || host === '') throw new Error('process-ceiling: TAPE_CEILING_HOST unset');
const etag = process.env.TAPE_CEILING_ETAG ?? '';
const page = Buffer.from(process.env.TAPE_CEILING_PAGE_B64 ?? '', 'base64');
const flat = (json: string | undefined): string[] =>
  Object.entries(JSON.parse(json ?? '{}') as Record<string, string>).flat();
const ok = flat(process.env.TAPE_CEILING_HEADERS_200);
const notModified = flat(process.env.TAPE_CEILING_HEADERS_304);

function ceiling(next: Listener): Listener {
  return function (this: Server, req, res) {
    if (req.headers.host !== host) return next.call(this, req, res);
    if (req.headers['if-none-match'] === etag) {
      res.writeHead(304, notModified);
      res.end();
      return;
    }
    res.writeHead(200, ok);
    res.end(page);
  };
}

// The gateway installs its request listener before it listens (src/http/main-listener.ts):
// wrap whatever each server has once it listens.
const listen = Server.prototype.listen;
Server.prototype.listen = function (this: Server, ...args: unknown[]) {
  this.once('listening', () => {
    const listeners = this.listeners('request') as Listener[];
    if (listeners.length !== 1) return;
    this.removeListener('request', listeners[0]);
    this.on('request', ceiling(listeners[0]));
  });
  return (listen as (...a: unknown[]) => Server).apply(this, args);
} as typeof Server.prototype.listen;
