import { Readable } from 'node:stream';

/**
 * Waits for a verified stream's first bytes before the response commits to its status: a track
 * whose first chunk fails (or that is missing) rejects here, so the route can still answer 502
 * instead of starting a 200 it cannot finish. The returned stream continues from those bytes;
 * a failure later calls `onLateError` and fails the stream (the connection is then cut: the
 * status line is gone). Destroying the returned stream (a client gone) destroys the source, so
 * nothing keeps its file or buffers.
 */
export async function primeStream(
  source: Readable,
  onLateError: (error: Error) => void,
  onBytes: (bytes: number) => void = () => undefined,
): Promise<Readable> {
  const iterator = source[Symbol.asyncIterator]() as AsyncIterator<Buffer>;
  let first: IteratorResult<Buffer>;
  try {
    first = await iterator.next();
  } catch (error) {
    source.destroy();
    throw error;
  }
  return new PrimedStream(source, iterator, first, onLateError, onBytes);
}

/**
 * A few verified chunks read ahead while the socket drains, so reading and hashing the next
 * chunk overlaps sending this one; bounded, so a stalled client holds at most this much.
 */
const READ_AHEAD_BYTES = 4 * 65536;

/** Pulls one chunk from the source per `_read`: backpressure passes straight through. */
class PrimedStream extends Readable {
  constructor(
    private readonly source: Readable,
    private readonly chunks: AsyncIterator<Buffer>,
    private primed: IteratorResult<Buffer> | undefined,
    private readonly onLateError: (error: Error) => void,
    private readonly onBytes: (bytes: number) => void,
  ) {
    super({ highWaterMark: READ_AHEAD_BYTES });
  }

  override _read(): void {
    const ready = this.primed;
    if (ready) {
      this.primed = undefined;
      this.forward(ready);
      return;
    }
    this.chunks.next().then(
      (step) => {
        if (!this.destroyed) this.forward(step);
      },
      (error: Error) => {
        if (this.destroyed) return; // we destroyed the source ourselves
        this.onLateError(error);
        this.destroy(error);
      },
    );
  }

  private forward(step: IteratorResult<Buffer>): void {
    if (step.done) {
      this.push(null);
      return;
    }
    this.onBytes(step.value.length);
    this.push(step.value);
  }

  override _destroy(error: Error | null, callback: (error?: Error | null) => void): void {
    this.source.destroy();
    callback(error);
  }
}
