import type { Readable } from 'node:stream';
import { commitmentToHex, TrackDigest, TrackHasher } from './commitment';
import {
  TrackCommitmentMismatchError,
  TrackSizeMismatchError,
  TrackUploadInterruptedError,
} from './track-errors';

/**
 * Reads an upload's whole body, hashing it, stopping at the first byte past `size`; each piece
 * goes to `sink` (a file, a spool) before the next is read. Every track store's put() checks
 * its bytes this one way: the size, then the commitment (`hex`) they must have.
 */
export async function hashTrackBody(
  hex: string,
  size: number,
  body: Readable,
  sink?: (bytes: Buffer) => Promise<void>,
): Promise<TrackDigest> {
  const hasher = new TrackHasher();
  const pieces = body[Symbol.asyncIterator]() as AsyncIterator<Buffer | string>;
  for (;;) {
    let step: IteratorResult<Buffer | string>;
    try {
      step = await pieces.next();
    } catch (err) {
      throw new TrackUploadInterruptedError(hex, hasher.size, err);
    }
    if (step.done) break;
    const bytes = typeof step.value === 'string' ? Buffer.from(step.value) : step.value;
    if (hasher.size + bytes.length > size) {
      throw new TrackSizeMismatchError(hex, size, hasher.size + bytes.length);
    }
    hasher.update(bytes);
    if (sink) await sink(bytes);
  }
  if (hasher.size !== size) throw new TrackSizeMismatchError(hex, size, hasher.size);
  const digest = hasher.digest();
  const actual = commitmentToHex(digest.commitment);
  if (actual !== hex) throw new TrackCommitmentMismatchError(hex, actual);
  return digest;
}
