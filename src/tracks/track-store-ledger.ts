import type { Readable } from 'node:stream';
import {
  IntegrityError,
  TrackNotFoundError,
  TrackStoreError,
  TrackStoreUnavailableError,
} from './track-errors';
import type { TrackIntegrityReport, TrackStoreStats } from './track-store';
import type { RangeReadCounters } from './verified-range-stream';

/** How many corrupt tracks `/healthz` names (the most recent). */
const RECENT_CORRUPT = 10;

/**
 * What a track store counts and remembers, whatever holds the bytes (the file and the S3
 * backends keep one each): puts and refused puts, bytes and chunks read and verified, integrity
 * failures and which tracks failed most recently, repaired copies, collected tracks.
 */
export class TrackStoreLedger {
  /** Handed to the range streams, which count as they read. */
  readonly counters: RangeReadCounters = { bytesRead: 0, chunksVerified: 0, integrityFailures: 0 };
  private readonly tally = {
    puts: 0,
    bytesWritten: 0,
    rejectedPuts: 0,
    quarantined: 0,
    collectedTracks: 0,
    collectedBytes: 0,
  };
  /** Most recent last; each track once. */
  private readonly corrupt = new Set<string>();
  private corruptCount = 0;

  stored(bytes: number): void {
    this.tally.puts++;
    this.tally.bytesWritten += bytes;
  }

  collected(bytes: number): void {
    this.tally.collectedTracks++;
    this.tally.collectedBytes += bytes;
  }

  /**
   * A refused put: the body is no longer read (an oversized upload is not drained to the end)
   * and, when the track itself was at fault (not a store that could not be reached), counted.
   */
  rejectPut(err: unknown, body: Readable): never {
    if (!body.destroyed) body.destroy();
    if (err instanceof TrackStoreError && !(err instanceof TrackStoreUnavailableError)) {
      this.tally.rejectedPuts++;
    }
    throw err;
  }

  /** Counts a failed verification of `hex` and returns its error, to throw. */
  integrityFailure(hex: string, detail: string): IntegrityError {
    this.counters.integrityFailures++;
    this.noteCorrupt(hex);
    return new IntegrityError(hex, detail);
  }

  noteCorrupt(hex: string): void {
    if (!this.corrupt.has(hex)) this.corruptCount++;
    this.corrupt.delete(hex);
    this.corrupt.add(hex);
    if (this.corrupt.size > RECENT_CORRUPT) {
      this.corrupt.delete(this.corrupt.values().next().value!);
    }
  }

  /** A corrupt stored copy set aside or overwritten by a verified upload. */
  noteQuarantined(hex: string): void {
    this.tally.quarantined++;
    this.noteCorrupt(hex);
  }

  integrity(): TrackIntegrityReport {
    return {
      corruptTracks: this.corruptCount,
      recentCorruptTracks: [...this.corrupt],
      quarantined: this.tally.quarantined,
    };
  }

  stats(backend: TrackStoreStats['backend']): TrackStoreStats {
    return {
      backend,
      ...this.tally,
      ...this.counters,
      corruptTracks: this.corruptCount,
      recentCorruptTracks: [...this.corrupt],
    };
  }
}

/** How a backend reads one stored copy whole, for `storedCopyFault`. */
export interface StoredCopy {
  hex: string;
  /** The size the commitment binds, and the size the store holds. */
  size: number;
  storedSize: number;
  /** What the backend calls a copy in its messages: a file, an object. */
  noun: string;
  /** Drops a verified chunk list remembered in memory: the stored one is what is checked. */
  forgetChunkList(): void;
  /** Reads and verifies the stored chunk list. */
  readChunkList(): Promise<unknown>;
  /** Every byte of the stored copy, each chunk verified (never from a cache). */
  readWhole(): AsyncIterable<unknown>;
}

/**
 * Why a stored copy fails verification, or undefined when it is intact: its length, its chunk
 * list and every chunk are read and checked (a put of a track already stored checks it, and a
 * failing copy is replaced by the verified upload: the repair).
 */
export async function storedCopyFault(
  ledger: TrackStoreLedger,
  copy: StoredCopy,
): Promise<string | undefined> {
  const { hex, size, storedSize, noun } = copy;
  if (storedSize !== size) {
    ledger.integrityFailure(hex, `stored ${noun} has ${storedSize} bytes`);
    return `stored ${noun} has ${storedSize} bytes, expected ${size}`;
  }
  copy.forgetChunkList();
  try {
    await copy.readChunkList();
    if (size > 0) for await (const piece of copy.readWhole()) void piece;
    return undefined;
  } catch (err) {
    if (err instanceof IntegrityError) return err.message;
    if (err instanceof TrackNotFoundError) return 'stored copy vanished';
    throw err;
  }
}
