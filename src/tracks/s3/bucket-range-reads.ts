import { randomBytes } from 'node:crypto';
import type { Readable } from 'node:stream';
import { chunkCount, storeKeyHex, verifyChunkList } from '../commitment';
import type { TrackStoreLedger } from '../track-store-ledger';
import type { VerifiedChunkLists } from '../verified-chunk-lists';
import { RemoteBytes, RemoteRangeStream } from './remote-range-stream';
import { INLINE_CHUNK_LIST_CHUNKS, TrackBucket } from './track-bucket';
import type { TrackCache } from './track-cache';

/** Whole-track cache fills started by partial reads, at once. */
const BACKGROUND_FILLS = 4;

export interface BucketRangeReadsDeps {
  bucket: TrackBucket;
  cache: TrackCache;
  chunkLists: VerifiedChunkLists;
  ledger: TrackStoreLedger;
  /** The track's verified chunk list (S3TrackStore.readChunkHashes). */
  chunkHashes(commitment: Buffer, size: number): Promise<Buffer>;
}

/**
 * Ranges of a track read from the bucket, every chunk hashed before any of it is pushed
 * (RemoteRangeStream): one ranged GET of exactly the chunks a range touches, with the chunk list
 * asked for at once, or taken from the object's metadata for a small track (one GET for a cold
 * read). A whole read also fills the verified cache; a partial one starts a background fetch of
 * the whole track into it, so the next ranges of a hot object are local.
 */
export class BucketRangeReads {
  /** Tracks being fetched whole in the background (fillInBackground). */
  private readonly filling = new Set<string>();

  constructor(private readonly deps: BucketRangeReadsDeps) {}

  /** Bytes start..endInclusive, verified; `mayFill`: a whole read also enters the cache. */
  open(
    commitment: Buffer,
    size: number,
    start: number,
    endInclusive: number,
    mayFill: boolean,
  ): Readable {
    const { cache, chunkLists, ledger } = this.deps;
    const hex = storeKeyHex(commitment);
    const whole = start === 0 && endInclusive === size - 1;
    const temp = cache.tempPath(hex, `${randomBytes(6).toString('hex')}.fill`);
    return new RemoteRangeStream({
      track: hex,
      size,
      start,
      endInclusive,
      chunkHashes: () => this.deps.chunkHashes(commitment, size),
      fetch: (from, to) => this.fetch(commitment, size, from, to),
      // The list may come with the bytes (inline metadata): ask for it only if it did not.
      listWithBytes: chunkCount(size) <= INLINE_CHUNK_LIST_CHUNKS && !chunkLists.get(hex, size),
      counters: ledger.counters,
      onIntegrityFailure: (track) => ledger.noteCorrupt(track),
      ...(mayFill &&
        whole &&
        cache.fits(size) && {
          fill: {
            tempPath: temp,
            admit: (hashes: Buffer) => cache.admit(hex, temp, size, hashes),
          },
        }),
    });
  }

  /**
   * A partial read of a track that is not cached: fetch the whole track once in the background
   * (verified, into the cache), so the next ranges of a hot object are local. At most
   * BACKGROUND_FILLS at once, one per track; a failure only leaves the track uncached.
   */
  fillInBackground(commitment: Buffer, size: number): void {
    const hex = storeKeyHex(commitment);
    if (!this.deps.cache.fits(size) || this.filling.has(hex)) return;
    if (this.filling.size >= BACKGROUND_FILLS) return;
    this.filling.add(hex);
    const stream = this.open(commitment, size, 0, size - 1, true);
    stream.on('data', () => undefined);
    stream.once('error', () => undefined);
    stream.once('close', () => this.filling.delete(hex));
  }

  /**
   * A ranged GET: the body, and the chunk list when the object carries one in its metadata that
   * matches the commitment (remembered like one read from `.chunks`; one that does not match is
   * ignored, and the `.chunks` object decides).
   */
  private async fetch(
    commitment: Buffer,
    size: number,
    from: number,
    to: number,
  ): Promise<RemoteBytes> {
    const hex = storeKeyHex(commitment);
    const { body, contentLength, inlineChunkList } = await this.deps.bucket.range(hex, from, to);
    if (contentLength !== undefined && contentLength !== to - from + 1) {
      body.destroy();
      throw this.deps.ledger.integrityFailure(hex, `stored object answers ${contentLength} bytes`);
    }
    if (inlineChunkList && verifyChunkList(commitment, size, inlineChunkList)) {
      this.deps.chunkLists.remember(hex, size, inlineChunkList);
      return { body, hashes: inlineChunkList };
    }
    return { body };
  }
}
