import { Readable } from 'node:stream';
import { ByteLru } from './byte-lru';
import {
  CHUNK_BYTES,
  COMMITMENT_BYTES,
  storeKeyHex,
  assertRangeInside,
  assertTrackSize,
  commitmentOfBuffer,
  commitmentToHex,
  etagOf,
} from './commitment';
import { MAX_MANIFEST_BYTES, ManifestError, decodeManifest } from './manifest';
import { SegmentTable } from './segment-table';
import { IntegrityError, TrackNotFoundError } from './track-errors';
import { TrackStore } from './track-store';

/**
 * A track as the chain records it. `size` is the payload size: for a manifest track, the whole
 * object's size (docs/program.md), not the manifest's own length.
 */
export type TrackRef = { kind: 'blob' | 'manifest'; commitment: Buffer; size: number } | PackedRef;

/**
 * A small file inside a pack track (docs/versions.md, "Packs"): `commitment` is the file's own
 * (its ETag), its bytes are `offset .. offset + size` of the pack, which never cross one of the
 * pack's 64 KiB chunks.
 */
export interface PackedRef {
  kind: 'packed';
  commitment: Buffer;
  size: number;
  pack: Buffer;
  packSize: number;
  offset: number;
}

export interface ObjectReaderOptions {
  /** Blobs up to this size are read whole, verified once and served from memory. */
  hotObjectMaxBytes: number;
  /** Budget of the verified hot-object cache. */
  hotCacheBytes: number;
  /** Budget of the decoded-manifest cache. */
  manifestCacheBytes: number;
}

export const DEFAULT_OBJECT_READER_OPTIONS: ObjectReaderOptions = {
  hotObjectMaxBytes: 1024 * 1024,
  hotCacheBytes: 64 * 1024 * 1024,
  manifestCacheBytes: 16 * 1024 * 1024,
};

/** An object ready to serve: its size is known and its first verification has passed. */
export interface OpenedObject {
  readonly kind: TrackRef['kind'];
  /** Payload size in bytes. */
  readonly size: number;
  /** The quoted commitment of the track the chain records (the manifest's, when streamed). */
  readonly etag: string;
  /** Tracks that hold the payload: 1 for a blob, the segment count for a streamed object. */
  readonly trackCount: number;
  /** The whole verified payload when it is held in memory (small blobs), else undefined. */
  readonly bytes: Buffer | undefined;
  /** How many store tracks a read of start..endInclusive opens. */
  tracksTouched(start: number, endInclusive: number): number;
  /** Verified bytes start..endInclusive (0 <= start <= endInclusive < size). */
  read(start: number, endInclusive: number): Readable;
}

/**
 * Serves objects by their chain record, following manifests transparently: a range opens only
 * the segment tracks it touches, each verified chunk by chunk by the store. Errors that can be
 * known before any byte is sent (track missing, chunk list or manifest corrupt) reject `open`;
 * a chunk that fails later ends the stream with an IntegrityError.
 */
export class ObjectReader {
  private readonly options: ObjectReaderOptions;
  private readonly hot: ByteLru<Buffer>;
  private readonly manifests: ByteLru<SegmentTable>;
  private readonly loading = new Map<string, Promise<Buffer | SegmentTable>>();

  constructor(
    private readonly store: TrackStore,
    options: Partial<ObjectReaderOptions> = {},
  ) {
    this.options = { ...DEFAULT_OBJECT_READER_OPTIONS, ...options };
    this.hot = new ByteLru(this.options.hotCacheBytes);
    this.manifests = new ByteLru(this.options.manifestCacheBytes);
  }

  async open(ref: TrackRef): Promise<OpenedObject> {
    checkRef(ref);
    if (ref.kind === 'manifest') return this.openStreamed(ref, await this.segmentTable(ref));
    if (ref.kind === 'packed') return hotObject(ref, await this.packedBytes(ref));
    if (ref.size <= this.options.hotObjectMaxBytes) return hotObject(ref, await this.hotBytes(ref));
    // Everything but the chunks themselves is checked now, while an error can still be a status.
    const stored = await this.store.storedSize(ref.commitment);
    const hex = commitmentToHex(ref.commitment);
    if (stored === undefined) throw new TrackNotFoundError(hex);
    if (stored !== ref.size) throw new IntegrityError(hex, `stored file has ${stored} bytes`);
    await this.store.readChunkHashes(ref.commitment, ref.size);
    return this.openBlob(ref);
  }

  /** The payload size without reading payload bytes (for HEAD): a manifest is still loaded. */
  async sizeOf(ref: TrackRef): Promise<number> {
    checkRef(ref);
    return ref.kind === 'manifest' ? (await this.segmentTable(ref)).size : ref.size;
  }

  private openBlob(ref: TrackRef): OpenedObject {
    return {
      kind: 'blob',
      size: ref.size,
      etag: etagOf(ref.commitment),
      trackCount: 1,
      bytes: undefined,
      tracksTouched: (start, end) => (checkRange(start, end, ref.size), 1),
      read: (start, end) => this.store.openRange(ref.commitment, ref.size, start, end),
    };
  }

  private openStreamed(ref: TrackRef, table: SegmentTable): OpenedObject {
    return {
      kind: 'manifest',
      size: table.size,
      etag: etagOf(ref.commitment),
      trackCount: table.count,
      bytes: undefined,
      tracksTouched: (start, end) => {
        checkRange(start, end, table.size);
        return table.indexOf(end) - table.indexOf(start) + 1;
      },
      read: (start, end) => {
        checkRange(start, end, table.size);
        const first = table.indexOf(start);
        const last = table.indexOf(end);
        if (first === last) return this.readSegment(table, first, start, end);
        return Readable.from(this.segmentBytes(table, first, last, start, end), {
          objectMode: false,
          highWaterMark: CHUNK_BYTES,
        });
      },
    };
  }

  /** Segments one after another, opening each only when the previous one is done. */
  private async *segmentBytes(
    table: SegmentTable,
    first: number,
    last: number,
    start: number,
    end: number,
  ): AsyncGenerator<Buffer> {
    for (let index = first; index <= last; index++) {
      for await (const bytes of this.readSegment(table, index, start, end)) yield bytes as Buffer;
    }
  }

  private readSegment(table: SegmentTable, index: number, start: number, end: number): Readable {
    const segmentStart = table.startOf(index);
    const segmentSize = table.sizeOf(index);
    return this.store.openRange(
      table.commitmentOf(index),
      segmentSize,
      Math.max(start - segmentStart, 0),
      Math.min(end - segmentStart, segmentSize - 1),
    );
  }

  private async hotBytes(ref: TrackRef): Promise<Buffer> {
    const key = `blob:${commitmentToHex(ref.commitment)}:${ref.size}`;
    const cached = this.hot.get(key);
    if (cached) return cached;
    return (await this.once(key, async () => {
      const bytes =
        ref.size === 0
          ? await this.store.readChunkHashes(ref.commitment, 0).then(() => Buffer.alloc(0))
          : await readAll(
              this.store.openRange(ref.commitment, ref.size, 0, ref.size - 1),
              ref.size,
            );
      this.hot.set(key, bytes);
      return bytes;
    })) as Buffer;
  }

  /**
   * A packed file: its range of the pack, verified chunk by chunk against the pack's commitment
   * by the store, then as a whole against the file's own commitment (the ETag it is served
   * with), so the tag always names the bytes sent. Cached like any hot object.
   */
  private async packedBytes(ref: PackedRef): Promise<Buffer> {
    const key = `packed:${commitmentToHex(ref.commitment)}:${ref.size}`;
    const cached = this.hot.get(key);
    if (cached) return cached;
    return (await this.once(key, async () => {
      const bytes =
        ref.size === 0
          ? Buffer.alloc(0)
          : await readAll(
              this.store.openRange(ref.pack, ref.packSize, ref.offset, ref.offset + ref.size - 1),
              ref.size,
            );
      if (!commitmentOfBuffer(bytes).commitment.equals(ref.commitment)) {
        throw new IntegrityError(
          commitmentToHex(ref.commitment),
          `its range of pack ${commitmentToHex(ref.pack)} holds other bytes`,
        );
      }
      this.hot.set(key, bytes);
      return bytes;
    })) as Buffer;
  }

  private async segmentTable(ref: TrackRef): Promise<SegmentTable> {
    const hex = commitmentToHex(ref.commitment);
    const key = `manifest:${hex}:${ref.size}`;
    const cached = this.manifests.get(key);
    if (cached) return cached;
    return (await this.once(key, async () => {
      // The manifest's own length is not on chain; the stored length is checked by the
      // commitment (which binds the size) when the bytes are read.
      const length = await this.store.storedSize(ref.commitment);
      if (length === undefined) throw new TrackNotFoundError(hex);
      if (length === 0 || length > MAX_MANIFEST_BYTES) {
        throw new IntegrityError(hex, `a ${length}-byte track cannot be a manifest`);
      }
      const bytes = await readAll(
        this.store.openRange(ref.commitment, length, 0, length - 1),
        length,
      );
      let table: SegmentTable;
      try {
        table = SegmentTable.fromManifest(decodeManifest(bytes));
      } catch (err) {
        if (err instanceof ManifestError) throw new IntegrityError(hex, err.message);
        throw err;
      }
      if (table.size !== ref.size) {
        throw new IntegrityError(
          hex,
          `manifest describes ${table.size} bytes, the chain ${ref.size}`,
        );
      }
      this.manifests.set(key, table);
      return table;
    })) as SegmentTable;
  }

  /** Concurrent first reads of one track share a single load. */
  private once(key: string, load: () => Promise<Buffer | SegmentTable>) {
    let pending = this.loading.get(key);
    if (!pending) {
      pending = load().finally(() => this.loading.delete(key));
      this.loading.set(key, pending);
    }
    return pending;
  }
}

function hotObject(ref: TrackRef, bytes: Buffer): OpenedObject {
  return {
    kind: 'blob',
    size: bytes.length,
    etag: etagOf(ref.commitment),
    trackCount: 1,
    bytes,
    tracksTouched: (start, end) => (checkRange(start, end, bytes.length), 1),
    read: (start, end) => {
      checkRange(start, end, bytes.length);
      // One view of the verified buffer: no copy, nothing left to verify.
      return Readable.from([bytes.subarray(start, end + 1)], { objectMode: false });
    },
  };
}

function checkRef(ref: TrackRef): void {
  if (ref.kind !== 'blob' && ref.kind !== 'manifest' && ref.kind !== 'packed') {
    throw new RangeError('unknown track kind');
  }
  if (ref.kind === 'packed') {
    assertTrackSize(ref.packSize);
    assertTrackSize(ref.offset);
    if (ref.offset + ref.size > ref.packSize || ref.pack.length !== COMMITMENT_BYTES) {
      throw new RangeError('a packed file lies inside its pack');
    }
  }
  storeKeyHex(ref.commitment);
  assertTrackSize(ref.size);
}

function checkRange(start: number, end: number, size: number): void {
  assertRangeInside(start, end, size, 'object');
}

/** Collects a verified stream known to be `size` bytes into one buffer. */
async function readAll(stream: Readable, size: number): Promise<Buffer> {
  const out = Buffer.allocUnsafe(size);
  let filled = 0;
  for await (const part of stream) {
    const bytes = part as Buffer;
    if (filled + bytes.length > size) throw new Error(`track stream longer than ${size} bytes`);
    bytes.copy(out, filled);
    filled += bytes.length;
  }
  if (filled !== size) throw new Error(`track stream ended at ${filled} of ${size} bytes`);
  return out;
}
