import { createHash } from 'node:crypto';
import { close, fstat, open, read } from 'node:fs';
import { Readable } from 'node:stream';
import { CHUNK_BYTES, CHUNK_HASH_BYTES } from './commitment';
import { IntegrityError, TrackNotFoundError } from './track-errors';

/** Chunks per read when chunks are not hashed (1 MiB): a stream holds at most this much. */
const TRUSTED_READ_CHUNKS = 16;

export interface RangeReadCounters {
  bytesRead: number;
  chunksVerified: number;
  integrityFailures: number;
}

export interface VerifiedRangeOptions {
  /** Lowercase hex commitment, for errors. */
  track: string;
  path: string;
  size: number;
  start: number;
  endInclusive: number;
  /** The verified chunk-hash list (loaded when the stream starts, so errors arrive as events). */
  chunkHashes: () => Promise<Buffer>;
  counters: RangeReadCounters;
  /** Told the track's hex when stored bytes fail (the store keeps a list for /healthz). */
  onIntegrityFailure?: (track: string) => void;
  /**
   * false: the file holds bytes already verified on their way in (the S3 store's local cache,
   * storage.tracks.cache.verify_reads off): chunks are not hashed again, only the file's size
   * and every read's length are checked. Default true.
   */
  verify?: boolean;
}

/**
 * Reads one chunk per `_read`, verifies it against its hash, then pushes only the part inside
 * the range (a view of the chunk buffer, no copy). highWaterMark is one chunk, so a consumer that
 * stops reading holds at most about one chunk here (one read of TRUSTED_READ_CHUNKS with
 * `verify: false`).
 */
export class VerifiedRangeStream extends Readable {
  private fd: number | undefined;
  private hashes: Buffer | undefined;
  private nextChunk: number;
  private readonly lastChunk: number;
  private reading = false;
  private closeAfterRead: (() => void) | undefined;

  constructor(private readonly options: VerifiedRangeOptions) {
    super({ highWaterMark: CHUNK_BYTES });
    this.nextChunk = Math.floor(options.start / CHUNK_BYTES);
    this.lastChunk = Math.floor(options.endInclusive / CHUNK_BYTES);
  }

  override _construct(callback: (error?: Error | null) => void): void {
    const hashes = this.verifies ? this.options.chunkHashes() : Promise.resolve(undefined);
    hashes
      .then((hashes) => {
        this.hashes = hashes;
        open(this.options.path, 'r', (openError, fd) => {
          if (openError) {
            callback(
              openError.code === 'ENOENT' ? new TrackNotFoundError(this.options.track) : openError,
            );
            return;
          }
          this.fd = fd;
          fstat(fd, (statError, stat) => {
            if (statError) return callback(statError);
            if (stat.size !== this.options.size) {
              return callback(this.integrityFailure(`stored file has ${stat.size} bytes`));
            }
            callback();
          });
        });
      })
      .catch((error: Error) => callback(error));
  }

  override _read(): void {
    if (this.nextChunk > this.lastChunk) {
      this.push(null);
      return;
    }
    // Unverified (trusted) reads take several chunks per read: fewer syscalls and pushes.
    const chunks = this.verifies
      ? 1
      : Math.min(TRUSTED_READ_CHUNKS, this.lastChunk - this.nextChunk + 1);
    const index = this.nextChunk;
    this.nextChunk += chunks;
    const chunkStart = index * CHUNK_BYTES;
    const length = Math.min(chunks * CHUNK_BYTES, this.options.size - chunkStart);
    const chunk = Buffer.allocUnsafe(length);
    this.reading = true;
    readFully(this.fd!, chunk, chunkStart, (error, bytesRead) => {
      this.reading = false;
      if (this.closeAfterRead) return this.closeAfterRead();
      if (this.destroyed) return;
      if (error) return this.destroy(error);
      this.options.counters.bytesRead += bytesRead;
      if (bytesRead !== length) {
        return this.destroy(this.integrityFailure(`chunk ${index} is truncated`));
      }
      if (this.verifies) {
        const expected = this.hashes!.subarray(
          index * CHUNK_HASH_BYTES,
          (index + 1) * CHUNK_HASH_BYTES,
        );
        if (!createHash('sha256').update(chunk).digest().equals(expected)) {
          return this.destroy(this.integrityFailure(`chunk ${index} does not match its hash`));
        }
        this.options.counters.chunksVerified++;
      }
      const from = Math.max(this.options.start - chunkStart, 0);
      const to = Math.min(this.options.endInclusive - chunkStart + 1, length);
      this.push(from === 0 && to === length ? chunk : chunk.subarray(from, to));
    });
  }

  private get verifies(): boolean {
    return this.options.verify !== false;
  }

  override _destroy(error: Error | null, callback: (error?: Error | null) => void): void {
    const closeFile = () => {
      this.closeAfterRead = undefined;
      const fd = this.fd;
      this.fd = undefined;
      if (fd === undefined) return callback(error);
      close(fd, (closeError) => callback(error ?? closeError));
    };
    // Closing while a read is in flight could let the fd number be reused under that read.
    if (this.reading) this.closeAfterRead = closeFile;
    else closeFile();
  }

  private integrityFailure(detail: string): IntegrityError {
    this.options.counters.integrityFailures++;
    this.options.onIntegrityFailure?.(this.options.track);
    return new IntegrityError(this.options.track, detail);
  }
}

/** fs.read until the buffer is full or the file ends. */
function readFully(
  fd: number,
  buffer: Buffer,
  position: number,
  done: (error: NodeJS.ErrnoException | null, bytesRead: number) => void,
  filled = 0,
): void {
  read(fd, buffer, filled, buffer.length - filled, position + filled, (error, bytesRead) => {
    if (error) return done(error, filled);
    const total = filled + bytesRead;
    if (bytesRead === 0 || total === buffer.length) return done(null, total);
    readFully(fd, buffer, position, done, total);
  });
}
