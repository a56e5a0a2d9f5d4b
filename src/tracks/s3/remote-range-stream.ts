import { createHash } from 'node:crypto';
import { FileHandle, open, rm } from 'node:fs/promises';
import { Readable } from 'node:stream';
import { PRIVATE_FILE_MODE } from '../../config/private-files';
import { CHUNK_BYTES, CHUNK_HASH_BYTES } from '../commitment';
import { IntegrityError, TrackStoreUnavailableError } from '../track-errors';
import { RangeReadCounters } from '../verified-range-stream';

/** Chunks (64 KiB each) a cache fill may have queued for writing before the read waits. */
const FILL_AHEAD = 16;

export interface RemoteRangeOptions {
  track: string;
  size: number;
  start: number;
  endInclusive: number;
  chunkHashes: () => Promise<Buffer>;
  /** A ranged GET of bytes from..toInclusive: the body stream, or a typed store error. */
  fetch: (from: number, toInclusive: number) => Promise<RemoteBytes>;
  /**
   * The answer to the GET may carry the (verified) chunk list: ask for the bytes first and for
   * the list only when it did not come with them. Otherwise both are asked for at once.
   */
  listWithBytes?: boolean;
  counters: RangeReadCounters;
  onIntegrityFailure?: (track: string) => void;
  /**
   * Whole-track reads fill the cache: verified chunks are written to `tempPath`, handed to
   * `admit` once the last one is written (removed when the read stops early). The fill is
   * synced and admitted after the stream has ended: the client never waits for the fsync.
   */
  fill?: { tempPath: string; admit: (hashes: Buffer) => Promise<void> };
}

/** What a ranged GET brings: the body, and the chunk list when the store kept it beside. */
export interface RemoteBytes {
  body: Readable;
  /** Already checked against the commitment by the store. */
  hashes?: Buffer;
}

/**
 * A range of a track from a remote store: one ranged GET of exactly the chunks the range
 * touches, each chunk verified against the commitment's chunk list before any of it is pushed.
 * The chunk list and the bytes are asked for at once (a cold read costs one round trip to the
 * store, not two), or the list comes with the bytes (listWithBytes: one request); no byte is
 * pushed before the list is here and verified.
 * highWaterMark is one chunk; the GET's body is pulled one chunk at a time, so a slow client
 * holds about one chunk here and TCP backpressure reaches the store.
 */
export class RemoteRangeStream extends Readable {
  private hashes: Buffer | undefined;
  private body: Readable | undefined;
  private pieces: AsyncIterator<Buffer> | undefined;
  private carry: Buffer[] = [];
  private carried = 0;
  private nextChunk: number;
  private readonly firstChunk: number;
  private readonly lastChunk: number;
  private reading = false;
  private fillFile: FileHandle | undefined;
  /** Cache-fill writes in order, off the read path (at most FILL_AHEAD chunks queued). */
  private fillWrites: Promise<void> = Promise.resolve();
  private fillQueued = 0;
  private fillFailed = false;

  constructor(private readonly options: RemoteRangeOptions) {
    super({ highWaterMark: CHUNK_BYTES });
    this.firstChunk = this.nextChunk = Math.floor(options.start / CHUNK_BYTES);
    this.lastChunk = Math.floor(options.endInclusive / CHUNK_BYTES);
  }

  override _construct(callback: (error?: Error | null) => void): void {
    // A cache that cannot take the fill (disk full, directory gone) never fails the read.
    const fillFile = this.options.fill
      ? open(this.options.fill.tempPath, 'w', PRIVATE_FILE_MODE).catch(() => undefined)
      : undefined;
    this.fetchWithList().then(
      async ({ body, hashes }) => {
        this.body = body;
        this.hashes = hashes;
        this.pieces = body[Symbol.asyncIterator]() as AsyncIterator<Buffer>;
        this.fillFile = await fillFile;
        callback();
      },
      async (err: Error) => {
        // _destroy closes and removes it.
        this.fillFile = await fillFile;
        callback(err);
      },
    );
  }

  /** The bytes of the range and the track's chunk list (the list's failure named first). */
  private async fetchWithList(): Promise<{ body: Readable; hashes: Buffer }> {
    const { size, chunkHashes, fetch, listWithBytes } = this.options;
    const from = this.firstChunk * CHUNK_BYTES;
    const to = Math.min(size, (this.lastChunk + 1) * CHUNK_BYTES) - 1;
    if (listWithBytes) {
      const got = await fetch(from, to);
      if (got.hashes) return { body: got.body, hashes: got.hashes };
      // Kept so that _destroy closes the response if the list fails.
      this.body = got.body;
      return { body: got.body, hashes: await chunkHashes() };
    }
    const [hashes, got] = await Promise.allSettled([chunkHashes(), fetch(from, to)]);
    if (got.status === 'fulfilled') this.body = got.value.body;
    // The list's error first: it says more (missing, corrupt) than the GET's.
    if (hashes.status === 'rejected') throw hashes.reason;
    if (got.status === 'rejected') throw got.reason;
    return { body: got.value.body, hashes: hashes.value };
  }

  override _read(): void {
    if (this.reading) return;
    if (this.nextChunk > this.lastChunk) {
      // Every byte is out: the fill is synced and admitted in the background (a failure only
      // leaves the track uncached).
      void this.finishFill();
      this.push(null);
      return;
    }
    this.reading = true;
    this.readChunk().then(
      (piece) => {
        this.reading = false;
        if (!this.destroyed) this.push(piece);
      },
      (err: Error) => {
        this.reading = false;
        this.destroy(err);
      },
    );
  }

  override _destroy(error: Error | null, callback: (error?: Error | null) => void): void {
    this.body?.destroy();
    const file = this.fillFile;
    this.fillFile = undefined;
    if (!file || !this.options.fill) return callback(error);
    const temp = this.options.fill.tempPath;
    this.fillWrites
      .then(() => file.close())
      .catch(() => undefined)
      .then(() => rm(temp, { force: true }))
      .then(
        () => callback(error),
        () => callback(error),
      );
  }

  private async readChunk(): Promise<Buffer> {
    const index = this.nextChunk++;
    const chunkStart = index * CHUNK_BYTES;
    const length = Math.min(CHUNK_BYTES, this.options.size - chunkStart);
    while (this.carried < length) {
      let step: IteratorResult<Buffer>;
      try {
        step = await this.pieces!.next();
      } catch (err) {
        throw new TrackStoreUnavailableError(this.options.track, err);
      }
      if (step.done) throw this.integrityFailure(`chunk ${index} is truncated`);
      this.carry.push(step.value);
      this.carried += step.value.length;
    }
    const joined = this.carry.length === 1 ? this.carry[0] : Buffer.concat(this.carry);
    const chunk = joined.subarray(0, length);
    const rest = joined.subarray(length);
    this.carry = rest.length > 0 ? [rest] : [];
    this.carried = rest.length;
    this.options.counters.bytesRead += length;
    const expected = this.hashes!.subarray(
      index * CHUNK_HASH_BYTES,
      (index + 1) * CHUNK_HASH_BYTES,
    );
    if (!createHash('sha256').update(chunk).digest().equals(expected)) {
      throw this.integrityFailure(`chunk ${index} does not match its hash`);
    }
    this.options.counters.chunksVerified++;
    if (this.fillFile) await this.queueFill(this.fillFile, chunk);
    const from = Math.max(this.options.start - chunkStart, 0);
    const to = Math.min(this.options.endInclusive - chunkStart + 1, length);
    return from === 0 && to === length ? chunk : chunk.subarray(from, to);
  }

  /**
   * The chunk goes to the fill file while the next one is read (a write per chunk awaited in
   * line made a cold 8 MiB segment wait for 128 thread-pool round trips); a disk slower than the
   * store holds the read once FILL_AHEAD chunks are queued. A failed write only drops the fill.
   */
  private async queueFill(file: FileHandle, chunk: Buffer): Promise<void> {
    this.fillQueued++;
    this.fillWrites = this.fillWrites
      .then(() => (this.fillFailed ? undefined : file.write(chunk)))
      .then(
        () => void this.fillQueued--,
        () => {
          this.fillQueued--;
          this.fillFailed = true;
        },
      );
    if (this.fillQueued >= FILL_AHEAD) await this.fillWrites;
  }

  private async finishFill(): Promise<void> {
    const file = this.fillFile;
    if (!file || !this.options.fill) return;
    this.fillFile = undefined;
    const { tempPath, admit } = this.options.fill;
    try {
      await this.fillWrites;
      if (this.fillFailed) throw new Error('a cache fill write failed');
      await file.sync();
      await file.close();
      await admit(this.hashes!);
    } catch {
      await file.close().catch(() => undefined);
      await rm(tempPath, { force: true }).catch(() => undefined);
    }
  }

  private integrityFailure(detail: string): IntegrityError {
    this.options.counters.integrityFailures++;
    this.options.onIntegrityFailure?.(this.options.track);
    return new IntegrityError(this.options.track, detail);
  }
}
