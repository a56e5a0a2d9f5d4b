import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

type Collect = (options?: { type?: 'minor' | 'major'; execution?: 'sync' | 'async' }) => void;

/**
 * Frees the chunk buffers of streamed responses promptly. Every 64 KiB chunk read from the track
 * store is a fresh ArrayBuffer; once sent it is garbage, but V8 frees such buffers only at a
 * young-generation collection, which streams (allocating little else) trigger only when tens of
 * MB of them have piled up ("external memory pressure"). With eight clients streaming 1 GiB the
 * gateway peaked at 186–204 MiB from 134 MiB idle; collecting after every 8 MiB streamed, at
 * 166–175 MiB (docs/object.md). A young-generation collection takes well under a millisecond
 * here (the live set is small): about 2% of the CPU a streamed GiB costs. Where the runtime
 * refuses to expose `gc`, this does nothing.
 *
 * `--expose-gc` set at run time takes effect for new contexts only: the same idiom Jest's leak
 * detector uses. The main context's globals are not touched.
 */
export class StreamedBytesCollector {
  private sinceLast = 0;

  constructor(
    private readonly everyBytes: number,
    private readonly collect: Collect | undefined = exposeGc(),
  ) {}

  /** Counts bytes handed to the network; collects when enough have passed. */
  sent(bytes: number): void {
    if (this.collect === undefined) return;
    this.sinceLast += bytes;
    if (this.sinceLast < this.everyBytes) return;
    this.sinceLast = 0;
    this.collect({ type: 'minor' });
  }
}

/**
 * The runtime's `gc`, exposed for this process (undefined where the runtime refuses). The flag
 * is set only long enough to take `gc` from a new context, then turned back off: V8 stamps the
 * code it caches with a hash of its flags, and a flag left changed would make the start-up code
 * cache (src/startup/code-cache.ts), written at exit, refused at every next start.
 */
export function exposeGc(): Collect | undefined {
  const own = (globalThis as { gc?: unknown }).gc;
  if (typeof own === 'function') return own as Collect;
  try {
    setFlagsFromString('--expose-gc');
    const collect = runInNewContext('gc') as unknown;
    return typeof collect === 'function' ? (collect as Collect) : undefined;
  } catch {
    return undefined;
  } finally {
    setFlagsFromString('--no-expose-gc');
  }
}
