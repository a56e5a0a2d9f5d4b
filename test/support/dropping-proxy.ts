import { createServer, IncomingMessage, request, Server, ServerResponse } from 'node:http';
import { AddressInfo } from 'node:net';

/**
 * An HTTP proxy in front of a listener that forwards every request whole, waits for the whole
 * answer, and for a share of requests drops the client's connection instead of passing the
 * answer on: the request took effect, the client never heard so. Clients that retry (aws-cli,
 * rclone, the SDKs) then send the same request again: what "safe to retry" must survive.
 * Which requests are dropped is decided by a seeded generator, so a run is reproducible.
 */
export interface DroppingProxy {
  url: string;
  /** Requests seen, and how many of them had their answer dropped. */
  stats: { requests: number; dropped: number };
  close(): Promise<void>;
}

export async function startDroppingProxy(
  target: string,
  options: { dropRate: number; seed?: number },
): Promise<DroppingProxy> {
  const upstream = new URL(target);
  const stats = { requests: 0, dropped: 0 };
  let state = options.seed ?? 1;
  const nextRandom = () => {
    // xorshift32: small, seeded, good enough to pick requests.
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    return (state >>> 0) / 0x1_0000_0000;
  };
  const server: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
    stats.requests++;
    const drop = nextRandom() < options.dropRate;
    const forwarded = request(
      {
        host: upstream.hostname,
        port: upstream.port,
        method: req.method,
        path: req.url,
        headers: req.headers,
      },
      (answer) => {
        if (drop) {
          // Read the whole answer (the write has happened), then hang up without a byte.
          answer.resume();
          answer.once('end', () => {
            stats.dropped++;
            req.socket.destroy();
          });
          return;
        }
        res.writeHead(answer.statusCode ?? 502, answer.rawHeaders);
        answer.pipe(res);
      },
    );
    forwarded.once('error', () => req.socket.destroy());
    req.pipe(forwarded);
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    stats,
    close: () =>
      new Promise<void>((done) => {
        server.closeAllConnections();
        server.close(() => done());
      }),
  };
}
