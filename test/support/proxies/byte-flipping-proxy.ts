import { startHttpProxy } from './http-proxy';

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
  const flipped: string[] = [];
  const proxy = await startHttpProxy(target, (req) => {
    if (req.method === 'HEAD' || !flips(new URL(req.url ?? '/', target).pathname)) return;
    return (answer, res) => {
      res.writeHead(answer.statusCode ?? 502, answer.rawHeaders);
      let first = true;
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
    };
  });
  return { ...proxy, flipped };
}
