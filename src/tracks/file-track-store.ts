import { randomBytes } from 'node:crypto';
import {
  FileHandle,
  mkdir,
  open,
  readdir,
  rename,
  rm,
  stat,
  statfs,
  unlink,
} from 'node:fs/promises';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { ByteLru } from './byte-lru';
import {
  WrongLength,
  isMissing,
  readExactly,
  syncDirectory,
  writeAll,
  writeDurably,
} from './durable-file';
import {
  COMMITMENT_BYTES,
  TrackDigest,
  TrackHasher,
  assertTrackSize,
  chunkCount,
  CHUNK_HASH_BYTES,
  commitmentToHex,
  verifyChunkList,
} from './commitment';
import {
  IntegrityError,
  TrackCommitmentMismatchError,
  TrackNotFoundError,
  TrackSizeMismatchError,
  TrackStoreError,
  TrackUploadInterruptedError,
} from './track-errors';
import { TrackStore, TrackStoreStats } from './track-store';
import { RangeReadCounters, VerifiedRangeStream } from './verified-range-stream';

/** Temporary files older than this are leftovers of a crash, not a put in progress. */
const STALE_TEMP_MS = 60 * 60 * 1000;

interface VerifiedChunkList {
  size: number;
  hashes: Buffer;
  byteLength: number;
}

/**
 * The embedded track store: a content-addressed directory.
 *
 *   <root>/<aa>/<bb>/<hex>          the track's bytes
 *   <root>/<aa>/<bb>/<hex>.chunks   its chunk-hash list (untrusted, verified on read)
 *   <root>/.tmp/                    puts in progress (same volume, so rename is atomic)
 *
 * A put writes both files under temporary names, fsyncs them, renames the list then the bytes
 * into place and fsyncs the directory: a track is visible only once it is whole and durable.
 */
export class FileTrackStore extends TrackStore {
  private readonly tmpDir: string;
  private ready: Promise<void> | undefined;
  private readonly chunkLists: ByteLru<VerifiedChunkList>;
  private readonly counters: RangeReadCounters = {
    bytesRead: 0,
    chunksVerified: 0,
    integrityFailures: 0,
  };
  private puts = 0;
  private bytesWritten = 0;
  private rejectedPuts = 0;

  constructor(
    readonly root: string,
    options: { chunkListCacheBytes?: number } = {},
  ) {
    super();
    this.tmpDir = join(root, '.tmp');
    // 16 MiB of verified lists describes 32 GiB of hot track data.
    this.chunkLists = new ByteLru(options.chunkListCacheBytes ?? 16 * 1024 * 1024);
  }

  /** Creates the directories and sweeps stale temporary files; idempotent. */
  init(): Promise<void> {
    this.ready ??= (async () => {
      await mkdir(this.tmpDir, { recursive: true });
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
    try {
      const info = await stat(this.paths(commitment).data);
      return info.isFile() ? info.size : undefined;
    } catch (err) {
      if (isMissing(err)) return undefined;
      throw err;
    }
  }

  async put(commitment: Buffer, size: number, body: Readable): Promise<void> {
    const paths = this.paths(commitment);
    assertTrackSize(size);
    await this.init();
    if (await this.has(commitment)) {
      // Content-addressed: nothing to write, but a lying body is still refused.
      await this.hashBody(paths.hex, size, body, undefined).catch((err) =>
        this.rejectPut(err, body),
      );
      return;
    }
    const suffix = `${process.pid}.${randomBytes(6).toString('hex')}.part`;
    const tmpData = join(this.tmpDir, `${paths.hex}.${suffix}`);
    const tmpChunks = join(this.tmpDir, `${paths.hex}.chunks.${suffix}`);
    let handle: FileHandle | undefined;
    try {
      handle = await open(tmpData, 'wx', 0o644);
      const file = handle;
      const digest = await this.hashBody(paths.hex, size, body, (bytes) => writeAll(file, bytes));
      await file.sync();
      await file.close();
      handle = undefined;
      await writeDurably(tmpChunks, digest.chunkHashes);
      await mkdir(paths.dir, { recursive: true });
      await rename(tmpChunks, paths.chunks);
      await rename(tmpData, paths.data);
      await syncDirectory(paths.dir);
      this.puts++;
      this.bytesWritten += size;
    } catch (err) {
      await handle?.close().catch(() => undefined);
      await rm(tmpData, { force: true });
      await rm(tmpChunks, { force: true });
      await this.rejectPut(err, body);
    }
  }

  async readChunkHashes(commitment: Buffer, size: number): Promise<Buffer> {
    const paths = this.paths(commitment);
    const cached = this.chunkLists.get(paths.hex);
    if (cached && cached.size === size) return cached.hashes;
    const expectedBytes = chunkCount(size) * CHUNK_HASH_BYTES;
    let hashes: Buffer;
    try {
      hashes = await readExactly(paths.chunks, expectedBytes);
    } catch (err) {
      if (err instanceof WrongLength) {
        throw this.integrityFailure(paths.hex, `chunk list has ${err.actual} bytes`);
      }
      if (!isMissing(err)) throw err;
      if (await this.has(commitment)) throw this.integrityFailure(paths.hex, 'chunk list missing');
      throw new TrackNotFoundError(paths.hex);
    }
    if (!verifyChunkList(commitment, size, hashes)) {
      throw this.integrityFailure(paths.hex, 'chunk list does not match the commitment');
    }
    this.chunkLists.set(paths.hex, { size, hashes, byteLength: hashes.length + 64 });
    return hashes;
  }

  openRange(commitment: Buffer, size: number, start: number, endInclusive: number): Readable {
    const paths = this.paths(commitment);
    assertTrackSize(size);
    if (
      !Number.isSafeInteger(start) ||
      !Number.isSafeInteger(endInclusive) ||
      start < 0 ||
      start > endInclusive ||
      endInclusive >= size
    ) {
      throw new RangeError(`range ${start}-${endInclusive} is not inside a ${size}-byte track`);
    }
    return new VerifiedRangeStream({
      track: paths.hex,
      path: paths.data,
      size,
      start,
      endInclusive,
      chunkHashes: () => this.readChunkHashes(commitment, size),
      counters: this.counters,
    });
  }

  async remove(commitment: Buffer): Promise<boolean> {
    const paths = this.paths(commitment);
    this.chunkLists.delete(paths.hex);
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
      backend: 'file',
      puts: this.puts,
      bytesWritten: this.bytesWritten,
      rejectedPuts: this.rejectedPuts,
      ...this.counters,
      ...(volume && {
        freeBytes: volume.bavail * volume.bsize,
        totalBytes: volume.blocks * volume.bsize,
      }),
    };
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
    if (!Buffer.isBuffer(commitment) || commitment.length !== COMMITMENT_BYTES) {
      throw new RangeError(`a commitment is ${COMMITMENT_BYTES} bytes`);
    }
    const hex = commitmentToHex(commitment);
    const dir = join(this.root, hex.slice(0, 2), hex.slice(2, 4));
    return { hex, dir, data: join(dir, hex), chunks: join(dir, `${hex}.chunks`) };
  }

  /** Reads the whole body, hashing it, stopping at the first byte past `size`. */
  private async hashBody(
    hex: string,
    size: number,
    body: Readable,
    sink: ((bytes: Buffer) => Promise<void>) | undefined,
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

  private async rejectPut(err: unknown, body: Readable): Promise<never> {
    // Stop reading a body we refused (an oversized upload is not drained to the end).
    if (!body.destroyed) body.destroy();
    if (err instanceof TrackStoreError) this.rejectedPuts++;
    throw err;
  }

  private integrityFailure(hex: string, detail: string): IntegrityError {
    this.counters.integrityFailures++;
    return new IntegrityError(hex, detail);
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
