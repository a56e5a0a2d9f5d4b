import { storedCopyFault, TrackStoreLedger } from './track-store-ledger';
import { Logger } from '@nestjs/common';
import { randomBytes } from 'node:crypto';
import { FileHandle, open, readdir, rename, rm, stat, statfs, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import {
  WrongLength,
  isMissing,
  linkIfAbsent,
  readExactly,
  renameIfPresent,
  sizeOnDisk,
  syncDirectory,
  writeAll,
  writeDurably,
} from './durable-file';
import {
  rangeReadHex,
  assertTrackSize,
  chunkCount,
  CHUNK_HASH_BYTES,
  storeKeyHex,
  verifyChunkList,
} from './commitment';
import { TrackNotFoundError } from './track-errors';
import { hashTrackBody } from './track-body';
import { TrackReferenceIndex } from './track-reference-index';
import { IndexedTrackStore } from './indexed-track-store';
import type {
  ReleaseOutcome,
  TrackIntegrityReport,
  TrackReference,
  TrackStoreStats,
} from './track-store';
import { VerifiedChunkLists } from './verified-chunk-lists';
import { VerifiedRangeStream } from './verified-range-stream';
import { makeDirectoryAsync } from '../config/directories';
import { PRIVATE_FILE_MODE } from '../config/private-files';

/** Temporary files older than this are leftovers of a crash, not a put in progress. */
const STALE_TEMP_MS = 60 * 60 * 1000;

/**
 * The embedded track store: a content-addressed directory.
 *
 *   <root>/<aa>/<bb>/<hex>          the track's bytes
 *   <root>/<aa>/<bb>/<hex>.chunks   its chunk-hash list (untrusted, verified on read)
 *   <root>/.tmp/                    puts in progress (same volume, so rename is atomic)
 *   <root>/quarantine/              stored copies that failed verification, moved aside
 *
 * Beside it, `<root>.references.sqlite` records which track accounts reference each blob (the
 * garbage collector's index).
 * A put writes both files under temporary names, fsyncs them, renames the list then the bytes
 * into place and fsyncs the directory: a track is visible only once it is whole and durable.
 */
export class FileTrackStore extends IndexedTrackStore {
  private readonly tmpDir: string;
  private ready: Promise<void> | undefined;
  private readonly chunkLists: VerifiedChunkLists;
  /** Releases moving a blob's files aside, by hex commitment: `storedSize` waits for them. */
  private readonly releasing = new Map<string, Promise<void>>();
  private readonly ledger = new TrackStoreLedger();
  private index?: TrackReferenceIndex;
  private readonly quarantineDir: string;
  private readonly indexPath: string;
  private readonly logger = new Logger('track-store');

  constructor(
    readonly root: string,
    options: { chunkListCacheBytes?: number; indexPath?: string } = {},
  ) {
    super();
    this.tmpDir = join(root, '.tmp');
    this.quarantineDir = join(root, 'quarantine');
    this.indexPath = options.indexPath ?? `${root}.references.sqlite`;
    this.chunkLists = new VerifiedChunkLists(options.chunkListCacheBytes);
  }

  /** Creates the directories and sweeps stale temporary files; idempotent. */
  init(): Promise<void> {
    this.ready ??= (async () => {
      await makeDirectoryAsync(this.tmpDir);
      await this.sweepStaleTemporaries();
    })().catch((err: unknown) => {
      this.ready = undefined; // retried by the next call rather than remembered
      throw err;
    });
    return this.ready;
  }

  async has(commitment: Buffer): Promise<boolean> {
    return (await this.storedSize(commitment)) !== undefined;
  }

  async storedSize(commitment: Buffer): Promise<number | undefined> {
    const paths = this.paths(commitment);
    await this.releasing.get(paths.hex);
    return sizeOnDisk(paths.data);
  }

  async put(commitment: Buffer, size: number, body: Readable): Promise<void> {
    const paths = this.paths(commitment);
    assertTrackSize(size);
    await this.init();
    let corruption: string | undefined;
    const stored = await this.storedSize(commitment);
    if (stored !== undefined) {
      corruption = await storedCopyFault(this.ledger, {
        hex: paths.hex,
        size,
        storedSize: stored,
        noun: 'file',
        forgetChunkList: () => this.chunkLists.forget(paths.hex),
        readChunkList: () => this.readChunkHashes(commitment, size),
        readWhole: () => this.openRange(commitment, size, 0, size - 1),
      });
      if (corruption === undefined) {
        // Content-addressed and intact: nothing to write, but a lying body is still refused.
        await hashTrackBody(paths.hex, size, body, undefined).catch((err) =>
          this.ledger.rejectPut(err, body),
        );
        return;
      }
    }
    const suffix = `${process.pid}.${randomBytes(6).toString('hex')}.part`;
    const tmpData = join(this.tmpDir, `${paths.hex}.${suffix}`);
    const tmpChunks = join(this.tmpDir, `${paths.hex}.chunks.${suffix}`);
    let handle: FileHandle | undefined;
    try {
      handle = await open(tmpData, 'wx', PRIVATE_FILE_MODE);
      const file = handle;
      const digest = await hashTrackBody(paths.hex, size, body, (bytes) => writeAll(file, bytes));
      await file.sync();
      await file.close();
      handle = undefined;
      await writeDurably(tmpChunks, digest.chunkHashes);
      await makeDirectoryAsync(paths.dir);
      // The stored copy failed verification: keep it aside (hard links, so it never vanishes
      // from its place before the verified copy is renamed over it).
      if (corruption !== undefined) await this.quarantine(paths, corruption);
      await rename(tmpChunks, paths.chunks);
      await rename(tmpData, paths.data);
      await syncDirectory(paths.dir);
      this.ledger.stored(size);
    } catch (err) {
      await handle?.close().catch(() => undefined);
      await rm(tmpData, { force: true });
      await rm(tmpChunks, { force: true });
      this.ledger.rejectPut(err, body);
    }
  }

  async readChunkHashes(commitment: Buffer, size: number): Promise<Buffer> {
    const paths = this.paths(commitment);
    const cached = this.chunkLists.get(paths.hex, size);
    if (cached) return cached;
    const expectedBytes = chunkCount(size) * CHUNK_HASH_BYTES;
    let hashes: Buffer;
    try {
      hashes = await readExactly(paths.chunks, expectedBytes);
    } catch (err) {
      if (err instanceof WrongLength) {
        throw this.ledger.integrityFailure(paths.hex, `chunk list has ${err.actual} bytes`);
      }
      if (!isMissing(err)) throw err;
      if (await this.has(commitment))
        throw this.ledger.integrityFailure(paths.hex, 'chunk list missing');
      throw new TrackNotFoundError(paths.hex);
    }
    if (!verifyChunkList(commitment, size, hashes)) {
      throw this.ledger.integrityFailure(paths.hex, 'chunk list does not match the commitment');
    }
    this.chunkLists.remember(paths.hex, size, hashes);
    return hashes;
  }

  openRange(commitment: Buffer, size: number, start: number, endInclusive: number): Readable {
    const paths = this.pathsOf(rangeReadHex(commitment, size, start, endInclusive));
    return new VerifiedRangeStream({
      track: paths.hex,
      path: paths.data,
      size,
      start,
      endInclusive,
      chunkHashes: () => this.readChunkHashes(commitment, size),
      counters: this.ledger.counters,
      onIntegrityFailure: (hex) => this.ledger.noteCorrupt(hex),
    });
  }

  protected async referenceIndex(): Promise<TrackReferenceIndex> {
    await this.init();
    return this.references();
  }

  /**
   * Tombstone, re-check, then delete. Uploads claim (a row in the index, synchronously) before
   * they look for the bytes, so: an upload that found the bytes before the tombstone rename
   * claimed before the re-check, which then sees its row and puts the bytes back; an upload
   * that looks after the rename finds nothing and writes its own copy, which no later step of
   * this method touches (only the tombstone names are deleted).
   */
  async release(
    commitment: Buffer,
    dead: TrackReference[],
    decidedAt: number,
  ): Promise<ReleaseOutcome> {
    const paths = this.paths(commitment);
    await this.init();
    const index = this.references();
    index.drop(commitment, dead, decidedAt);
    if (index.referenceCount(commitment) > 0) return { outcome: 'kept' };
    // While the files are moved aside, a claim may come and has them put back: whoever asks
    // whether they are stored meanwhile waits for the outcome instead of seeing a gap.
    const settled = this.moveAside(commitment, paths, index);
    this.releasing.set(
      paths.hex,
      settled.then(() => undefined),
    );
    try {
      return await settled;
    } finally {
      this.releasing.delete(paths.hex);
    }
  }

  /** The tail of `release`: the files moved to tombs, then deleted or put back if claimed. */
  private async moveAside(
    commitment: Buffer,
    paths: ReturnType<FileTrackStore['paths']>,
    index: ReturnType<FileTrackStore['references']>,
  ): Promise<ReleaseOutcome> {
    const suffix = `${process.pid}.${randomBytes(6).toString('hex')}.gc`;
    const tombData = join(this.tmpDir, `${paths.hex}.${suffix}`);
    const tombChunks = join(this.tmpDir, `${paths.hex}.chunks.${suffix}`);
    const size = await sizeOnDisk(paths.data);
    const movedData = await renameIfPresent(paths.data, tombData);
    const movedChunks = await renameIfPresent(paths.chunks, tombChunks);
    if (index.referenceCount(commitment) > 0) {
      // Claimed meanwhile: put back what we moved (unless a new copy is already in place).
      if (movedChunks) await linkIfAbsent(tombChunks, paths.chunks);
      if (movedData) await linkIfAbsent(tombData, paths.data);
      await rm(tombChunks, { force: true });
      await rm(tombData, { force: true });
      return { outcome: 'kept' };
    }
    this.chunkLists.forget(paths.hex);
    await rm(tombChunks, { force: true });
    await rm(tombData, { force: true });
    if (!movedData) return { outcome: 'absent' };
    this.ledger.collected(size ?? 0);
    return { outcome: 'deleted', bytes: size ?? 0 };
  }

  async remove(commitment: Buffer): Promise<boolean> {
    const paths = this.paths(commitment);
    this.chunkLists.forget(paths.hex);
    let existed = true;
    try {
      await unlink(paths.data);
    } catch (err) {
      if (!isMissing(err)) throw err;
      existed = false;
    }
    await rm(paths.chunks, { force: true });
    return existed;
  }

  async stats(): Promise<TrackStoreStats> {
    const volume = await statfs(this.root).catch(() => undefined);
    return {
      ...this.ledger.stats('file'),
      ...(volume && {
        freeBytes: volume.bavail * volume.bsize,
        totalBytes: volume.blocks * volume.bsize,
      }),
    };
  }

  integrity(): TrackIntegrityReport {
    return this.ledger.integrity();
  }

  async checkHealth(): Promise<void> {
    const probe = join(this.tmpDir, `health.${process.pid}.${randomBytes(4).toString('hex')}`);
    try {
      await this.init();
      await writeDurably(probe, Buffer.from('ok'));
    } catch (err) {
      throw new Error(
        `track store not writable (${(err as NodeJS.ErrnoException).code ?? 'error'})`,
      );
    } finally {
      await rm(probe, { force: true }).catch(() => undefined);
    }
  }

  private paths(commitment: Buffer) {
    return this.pathsOf(storeKeyHex(commitment));
  }

  private pathsOf(hex: string) {
    const dir = join(this.root, hex.slice(0, 2), hex.slice(2, 4));
    return { hex, dir, data: join(dir, hex), chunks: join(dir, `${hex}.chunks`) };
  }

  /** Opened on first use: reads and puts without references never pay for SQLite. */
  private references(): TrackReferenceIndex {
    this.index ??= new TrackReferenceIndex(this.indexPath);
    return this.index;
  }

  private async quarantine(
    paths: { hex: string; data: string; chunks: string },
    reason: string,
  ): Promise<void> {
    await makeDirectoryAsync(this.quarantineDir);
    const base = join(this.quarantineDir, `${paths.hex}.${Date.now()}`);
    await linkIfAbsent(paths.data, base);
    await linkIfAbsent(paths.chunks, `${base}.chunks`);
    this.chunkLists.forget(paths.hex);
    this.ledger.noteQuarantined(paths.hex);
    this.logger.warn({
      msg: 'stored track failed verification; replaced by a verified upload',
      track: paths.hex,
      reason,
      quarantine: base,
    });
  }

  private async sweepStaleTemporaries(): Promise<void> {
    const cutoff = Date.now() - STALE_TEMP_MS;
    for (const name of await readdir(this.tmpDir)) {
      const path = join(this.tmpDir, name);
      const info = await stat(path).catch(() => undefined);
      if (info && info.mtimeMs < cutoff) await rm(path, { force: true, recursive: true });
    }
  }
}
