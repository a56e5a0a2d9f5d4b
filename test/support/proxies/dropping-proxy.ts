import { startHttpProxy } from './http-proxy';

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
  const stats = { requests: 0, dropped: 0 };
  let state = options.seed ?? 1;
  const nextRandom = () => {
    // xorshift32: small, seeded, good enough to pick requests.
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    return (state >>> 0) / 0x1_0000_0000;
  };
  const proxy = await startHttpProxy(target, (req) => {
    stats.requests++;
    if (nextRandom() >= options.dropRate) return;
    return (answer) => {
      // Read the whole answer (the write has happened), then hang up without a byte.
      answer.resume();
      answer.once('end', () => {
        stats.dropped++;
        req.socket.destroy();
      });
    };
  });
  return { ...proxy, stats };
}
