import { FileHandle, open, rm } from 'node:fs/promises';
import { Readable } from 'node:stream';
import { PRIVATE_FILE_MODE } from '../config/private-files';
import { CHUNK_BYTES } from './commitment';
import { IntegrityError, TrackNotFoundError, TrackStoreUnavailableError } from './track-errors';

/** One place a range of a track can come from: a local cache file, a peer gateway. */
export interface RangeSource {
  /** For logs and metrics (a peer's origin, `cache`). */
  name: string;
  /** A verified stream of bytes from..toInclusive (pushes only bytes that passed their hash). */
  open(from: number, toInclusive: number): Readable;
  /** Told why this source was left (its stream failed); the next one continues. */
  failed(err: Error): void;
}

export interface FailoverRangeOptions {
  track: string;
  start: number;
  endInclusive: number;
  /** Awaited before any source is opened (a chunk list every source needs); its error ends the read. */
  before?: () => Promise<unknown>;
  /**
   * Asked in order; each is opened only when the ones before it failed. A function is called
   * after `before` (what `before` learned, a peer that failed, can change the order).
   */
  sources: RangeSource[] | (() => RangeSource[]);
  /**
   * A whole-track read that may fill the local cache: the verified bytes are written to
   * `tempPath` and handed to `admit` after the last one is out (removed if the read stops).
   */
  fill?: { tempPath: string; admit: () => Promise<void> };
}

/**
 * A verified range read that survives a bad source. Each source's stream pushes only bytes
 * that matched their chunk hash, so when one fails (a lying or vanished peer, a cache file
 * damaged on disk) every byte already pushed is right, and the next source continues from the
 * first byte not yet sent: the reader gets the honest bytes in one answer. Fails only when every
 * source did: with an IntegrityError when any of them served bad bytes, TrackNotFoundError
 * when none had the track, else TrackStoreUnavailableError.
 */
export function failoverRange(options: FailoverRangeOptions): Readable {
  return Readable.from(pieces(options), { objectMode: false, highWaterMark: CHUNK_BYTES });
}

async function* pieces(options: FailoverRangeOptions): AsyncGenerator<Buffer> {
  const { start, endInclusive, fill } = options;
  let next = start;
  const failures: Error[] = [];
  let file: FileHandle | undefined;
  let filled = false;
  try {
    await options.before?.();
    const sources = typeof options.sources === 'function' ? options.sources() : options.sources;
    if (fill) file = await open(fill.tempPath, 'w', PRIVATE_FILE_MODE).catch(() => undefined);
    for (const source of sources) {
      if (next > endInclusive) break;
      const stream = source.open(next, endInclusive);
      try {
        for await (const piece of stream as AsyncIterable<Buffer>) {
          next += piece.length;
          if (file) await file.write(piece).catch(() => (file = closeQuietly(file)));
          yield piece;
        }
        if (next <= endInclusive) throw new IntegrityError(options.track, 'source ended early');
      } catch (err) {
        stream.destroy();
        const error = err instanceof Error ? err : new Error(String(err));
        failures.push(error);
        source.failed(error);
      }
    }
    if (next <= endInclusive) throw exhausted(options.track, failures);
    if (file && fill) {
      await file.sync();
      await file.close();
      file = undefined;
      filled = true;
      // After the last byte: the client never waits for the fsync's admit.
      void fill.admit().catch(() => rm(fill.tempPath, { force: true }).catch(() => undefined));
    }
  } finally {
    if (file) await file.close().catch(() => undefined);
    if (fill && !filled) await rm(fill.tempPath, { force: true }).catch(() => undefined);
  }
}

function closeQuietly(file: FileHandle | undefined): undefined {
  void file?.close().catch(() => undefined);
  return undefined;
}

/** What to report when every source failed. */
export function exhausted(track: string, failures: Error[]): Error {
  const lie = failures.find((e) => e instanceof IntegrityError);
  if (lie) return lie;
  if (failures.length > 0 && failures.every((e) => e instanceof TrackNotFoundError)) {
    return new TrackNotFoundError(track);
  }
  const last = failures[failures.length - 1];
  return new TrackStoreUnavailableError(track, last ?? new Error('no source to read from'));
}
