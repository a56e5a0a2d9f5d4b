import { Logger } from '@nestjs/common';
import { readdir, rename, rm, stat, utimes } from 'node:fs/promises';
import { join } from 'node:path';
import { ByteLru } from '../byte-lru';
import { writeDurably } from '../durable-file';
import type { RangeSource } from '../failover-range';
import { RangeReadCounters, VerifiedRangeStream } from '../verified-range-stream';
import { makeDirectoryAsync } from '../../config/directories';

/** What the LRU keeps per cached track: its size (the file on disk is the value). */
interface CachedTrack {
  size: number;
  byteLength: number;
  /** When its file's mtime was last set (the recency a restart rebuilds from). */
  touched: number;
}

/** A hit refreshes the file's mtime at most this often (one utimes per track per minute). */
const TOUCH_INTERVAL_MS = 60_000;

const HEX = /^[0-9a-f]{64}$/;

/**
 * The verified local read-through cache in front of a remote track store:
 *
 *   <dir>/<hex>          a whole track's bytes, every chunk verified before it was written
 *   <dir>/<hex>.chunks   its chunk-hash list, verified against the commitment
 *   <dir>/.tmp/          fills in progress (swept at start: a killed reader leaves nothing half)
 *
 * Bounded in bytes (LRU over track sizes); the index is rebuilt from the directory at start,
 * oldest access first, so the cache survives restarts. Only verified tracks are admitted: every
 * chunk of a fill is checked against the commitment's chunk list before it is written, the
 * file is synced, then renamed in beside its (verified) list. Reads from it are hashed again
 * (storage.tracks.cache.verify_reads, on by default): a file changed on this disk fails, is
 * evicted, and the read continues from the store (failoverRange). See docs/tracks.md.
 */
export class TrackCache {
  private readonly lru: ByteLru<CachedTrack>;
  readonly tmpDir: string;
  private ready: Promise<void> | undefined;
  private readonly logger = new Logger('track-cache');

  constructor(
    readonly dir: string,
    readonly maxBytes: number,
  ) {
    this.tmpDir = join(dir, '.tmp');
    this.lru = new ByteLru<CachedTrack>(maxBytes, (hex) => void this.unlinkFiles(hex));
  }

  init(): Promise<void> {
    this.ready ??= this.rebuild();
    return this.ready;
  }

  get bytes(): number {
    return this.lru.bytes;
  }

  get tracks(): number {
    return this.lru.size;
  }

  dataPath(hex: string): string {
    return join(this.dir, hex);
  }

  /**
   * The cached copy of a track as a source of failoverRange: read from its file, every chunk
   * hashed again unless `verify` is false. `failed` is told when a read of it fails (the caller
   * drops the copy: the next source continues the range).
   */
  rangeSource(track: {
    hex: string;
    size: number;
    chunkHashes: () => Promise<Buffer>;
    counters: RangeReadCounters;
    verify: boolean;
    failed: (err: Error) => void;
  }): RangeSource {
    return {
      name: 'cache',
      open: (from, to) =>
        new VerifiedRangeStream({
          track: track.hex,
          path: this.dataPath(track.hex),
          size: track.size,
          start: from,
          endInclusive: to,
          chunkHashes: track.chunkHashes,
          counters: track.counters,
          verify: track.verify,
        }),
      failed: track.failed,
    };
  }

  chunksPath(hex: string): string {
    return join(this.dir, `${hex}.chunks`);
  }

  /** The cached track's size (and marks it recently used), or undefined. */
  lookup(hex: string): number | undefined {
    const entry = this.lru.get(hex);
    if (!entry) return undefined;
    const now = Date.now();
    if (now - entry.touched > TOUCH_INTERVAL_MS) {
      entry.touched = now;
      const at = new Date(now);
      void utimes(this.dataPath(hex), at, at).catch(() => undefined);
    }
    return entry.size;
  }

  /** Whether a track of this size would be admitted at all. */
  fits(size: number): boolean {
    return size > 0 && size <= this.maxBytes;
  }

  /** A temporary file name for a fill of `hex` (in .tmp, same volume as the cache). */
  tempPath(hex: string, tag: string): string {
    return join(this.tmpDir, `${hex}.${process.pid}.${tag}.part`);
  }

  /**
   * Moves a fully verified temporary file into the cache with its verified chunk list. The
   * list is written first: a data file is visible only with its list beside it.
   */
  async admit(hex: string, tempData: string, size: number, chunkHashes: Buffer): Promise<void> {
    await this.init();
    if (!this.fits(size)) {
      await rm(tempData, { force: true });
      return;
    }
    try {
      await writeDurably(this.chunksPath(hex), chunkHashes);
      await rename(tempData, this.dataPath(hex));
      this.lru.set(hex, { size, byteLength: size, touched: Date.now() });
    } catch (err) {
      await rm(tempData, { force: true });
      this.logger.warn(`track ${hex} not cached: ${(err as Error).message}`);
    }
  }

  /** Drops a track (failed verification here, or deleted from the store). */
  async evict(hex: string): Promise<void> {
    this.lru.delete(hex);
    await this.unlinkFiles(hex);
  }

  private async unlinkFiles(hex: string): Promise<void> {
    // Readers holding the file open keep reading it: unlink only removes the name.
    await rm(this.dataPath(hex), { force: true }).catch(() => undefined);
    await rm(this.chunksPath(hex), { force: true }).catch(() => undefined);
  }

  private async rebuild(): Promise<void> {
    await makeDirectoryAsync(this.tmpDir);
    for (const name of await readdir(this.tmpDir)) {
      await rm(join(this.tmpDir, name), { force: true, recursive: true });
    }
    const names = new Set(await readdir(this.dir));
    const found: { hex: string; size: number; used: number }[] = [];
    for (const name of names) {
      if (!HEX.test(name)) continue;
      const info = await stat(this.dataPath(name)).catch(() => undefined);
      if (!info?.isFile()) continue;
      if (!names.has(`${name}.chunks`)) {
        await this.unlinkFiles(name);
        continue;
      }
      found.push({ hex: name, size: info.size, used: Math.max(info.atimeMs, info.mtimeMs) });
    }
    for (const name of names) {
      // A list whose bytes are gone (a crash between the two renames of admit).
      if (name.endsWith('.chunks') && !names.has(name.slice(0, -'.chunks'.length))) {
        await rm(join(this.dir, name), { force: true });
      }
    }
    found.sort((a, b) => a.used - b.used);
    for (const t of found) {
      // Over budget after a smaller max_bytes: the LRU evicts (and unlinks) the oldest.
      this.lru.set(t.hex, { size: t.size, byteLength: t.size, touched: t.used });
    }
    if (found.length > 0) {
      this.logger.log(`track cache: ${this.lru.size} tracks, ${this.lru.bytes} bytes`);
    }
  }
}
