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
): Promise<Readable> {
  const iterator = source[Symbol.asyncIterator]() as AsyncIterator<Buffer>;
  let first: IteratorResult<Buffer>;
  try {
    first = await iterator.next();
  } catch (error) {
    source.destroy();
    throw error;
  }
  return Readable.from(continueFrom(first, iterator, onLateError), { objectMode: false });
}

async function* continueFrom(
  first: IteratorResult<Buffer>,
  iterator: AsyncIterator<Buffer>,
  onLateError: (error: Error) => void,
): AsyncGenerator<Buffer> {
  try {
    if (first.done) return;
    yield first.value;
    for (;;) {
      let step: IteratorResult<Buffer>;
      try {
        step = await iterator.next();
      } catch (error) {
        onLateError(error as Error);
        throw error;
      }
      if (step.done) return;
      yield step.value;
    }
  } finally {
    // Ends the source early when the consumer stopped (no-op once it has ended).
    await iterator.return?.();
  }
}
