import { Readable, Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { TrackKind } from '../../tracks/track-kind';
import { TrackHasher } from '../../tracks/commitment';
import type { SpooledObject } from './spooled-object';

/**
 * Receives a small body (one segment at most) into one buffer while hashing it. The protocol
 * layer ends the stream only at exactly the declared length, so `declaredSize` bounds the
 * memory; more bytes than declared fail the body instead of growing the buffer.
 */
export async function receiveInMemory(
  body: Readable,
  declaredSize: number,
): Promise<SpooledObject> {
  const buffer = Buffer.allocUnsafe(declaredSize);
  const hasher = new TrackHasher();
  let filled = 0;
  await pipeline(
    body,
    new Writable({
      write(chunk: Buffer, _encoding, done) {
        if (filled + chunk.length > declaredSize) {
          done(new Error(`the body is longer than the declared ${declaredSize} bytes`));
          return;
        }
        chunk.copy(buffer, filled);
        hasher.update(chunk);
        filled += chunk.length;
        done();
      },
    }),
  );
  if (filled !== declaredSize) {
    throw new Error(`the body has ${filled} bytes, ${declaredSize} declared`);
  }
  const { commitment } = hasher.digest();
  return {
    size: filled,
    kind: TrackKind.Blob,
    commitment,
    segments: [{ bytes: buffer, size: filled, commitment }],
  };
}
