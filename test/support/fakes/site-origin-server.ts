import { IncomingMessage, ServerResponse } from 'node:http';
import { listenLoopback } from '../proxies/loopback-server';

/**
 * A tiny HTTP server on a free loopback port, standing for "another origin" in browser tests:
 * an API a site may or may not connect to, or a page of another site reading ours.
 */
export interface OriginServer {
  origin: string;
  port: number;
  /** Paths requested so far, in order. */
  requests: string[];
  close(): Promise<void>;
}

export async function startOriginServer(
  handler: (req: IncomingMessage, res: ServerResponse) => void,
): Promise<OriginServer> {
  const requests: string[] = [];
  const server = await listenLoopback((req, res) => {
    requests.push(req.url ?? '');
    handler(req, res);
  });
  return { origin: server.url, port: server.port, requests, close: server.close };
}

/** An API endpoint any origin may read (so only the page's own CSP decides). */
export function openApi(body: string) {
  return (_req: IncomingMessage, res: ServerResponse) => {
    res.writeHead(200, {
      'content-type': 'application/json',
      'access-control-allow-origin': '*',
    });
    res.end(body);
  };
}
