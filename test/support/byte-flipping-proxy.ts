import { createServer, request } from 'node:http';
import { AddressInfo } from 'node:net';

/**
 * A lying peer gateway: passes every request to `target` and answers with its status and
 * headers, but flips one byte (the first) of the body of each answer whose path `flips` (by
 * default: a track's raw bytes, `/tracks/{hex}`). Lengths stay right, so only hashing catches it.
 */
export interface ByteFlippingProxy {
  url: string;
  /** `METHOD /path` of each answer whose body had a byte flipped. */
  readonly flipped: string[];
  close(): Promise<void>;
}

export async function startByteFlippingProxy(
  target: string,
  flips: (path: string) => boolean = (path) => /^\/tracks\/[0-9a-f]{64}$/.test(path),
): Promise<ByteFlippingProxy> {
  const upstream = new URL(target);
  const flipped: string[] = [];
  const server = createServer((req, res) => {
    const forwarded = request(
      {
        host: upstream.hostname,
        port: upstream.port,
        method: req.method,
        path: req.url,
        headers: req.headers,
      },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        let first = req.method !== 'HEAD' && flips(new URL(req.url ?? '/', target).pathname);
        answer.on('data', (piece: Buffer) => {
          if (first && piece.length > 0) {
            first = false;
            piece = Buffer.from(piece);
            piece[0] ^= 0xff;
            flipped.push(`${req.method} ${req.url}`);
          }
          if (!res.write(piece)) {
            answer.pause();
            res.once('drain', () => answer.resume());
          }
        });
        answer.on('end', () => res.end());
        answer.on('error', () => res.destroy());
      },
    );
    forwarded.on('error', () => res.destroy());
    res.on('close', () => forwarded.destroy());
    req.pipe(forwarded);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    flipped,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
