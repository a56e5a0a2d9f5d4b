import { randomBytes } from 'node:crypto';
import { FileHandle, open, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { TrackHasher } from '../../tracks/commitment';

/**
 * One segment of a received body and its commitment: in a spool file (`path`), or, for a small
 * body, in memory (`bytes`).
 */
export interface SpooledSegment {
  path?: string;
  bytes?: Buffer;
  size: number;
  commitment: Buffer;
}

/**
 * The sink a request body is piped into: it cuts the bytes into segment files of `segmentBytes`
 * (the track store's segment size) in the spool directory and hashes each segment on the way
 * (one pass, memory of one write). A segment is closed only when more bytes arrive, so a body
 * of exactly one segment stays one blob, exactly as `tape deploy` lays files out. On error or
 * destroy the files are removed.
 */
export class SegmentSpoolWriter extends Writable {
  readonly segments: SpooledSegment[] = [];
  private readonly prefix: string;
  private file?: FileHandle;
  private path = '';
  private hasher = new TrackHasher();
  private total = 0;
  private settleCleanup!: () => void;
  /** Settles once the writer is destroyed and, after a failure, its files are removed. */
  readonly cleanedUp = new Promise<void>((resolve) => (this.settleCleanup = resolve));

  constructor(
    private readonly dir: string,
    private readonly segmentBytes: number,
  ) {
    super({ highWaterMark: 1024 * 1024 });
    this.prefix = join(dir, `${Date.now()}-${randomBytes(8).toString('hex')}`);
  }

  get size(): number {
    return this.total;
  }

  /** Every file this writer created (for removal once stored or on failure). */
  override _construct(callback: (error?: Error | null) => void): void {
    this.openSegment().then(() => callback(), callback);
  }

  override _write(chunk: Buffer, _encoding: BufferEncoding, callback: (e?: Error) => void): void {
    this.append(chunk).then(() => callback(), callback);
  }

  override _final(callback: (error?: Error | null) => void): void {
    this.closeSegment().then(() => callback(), callback);
  }

  override _destroy(error: Error | null, callback: (error?: Error | null) => void): void {
    const file = this.file;
    this.file = undefined;
    const paths = [...this.segments.map((s) => s.path!), this.path];
    const finished = this.writableFinished;
    void (async () => {
      await file?.close().catch(() => undefined);
      // Kept only after a clean finish: then the caller owns the files.
      if (error || !finished) await Promise.all(paths.map((p) => rm(p, { force: true })));
    })().then(() => {
      this.settleCleanup();
      callback(error);
    });
  }

  private async append(chunk: Buffer): Promise<void> {
    let offset = 0;
    while (offset < chunk.length) {
      if (this.hasher.size === this.segmentBytes) {
        await this.closeSegment();
        await this.openSegment();
      }
      const take = Math.min(this.segmentBytes - this.hasher.size, chunk.length - offset);
      const piece = take === chunk.length ? chunk : chunk.subarray(offset, offset + take);
      this.hasher.update(piece);
      await this.file!.write(piece);
      offset += take;
      this.total += take;
    }
  }

  private async openSegment(): Promise<void> {
    this.path = `${this.prefix}.${this.segments.length}.seg`;
    this.hasher = new TrackHasher();
    this.file = await open(this.path, 'wx', 0o600);
  }

  private async closeSegment(): Promise<void> {
    const file = this.file!;
    this.file = undefined;
    await file.close();
    const digest = this.hasher.digest();
    this.segments.push({ path: this.path, size: digest.size, commitment: digest.commitment });
  }
}

/** Removes spool files, ignoring those already gone. */
export async function removeFiles(paths: string[]): Promise<void> {
  await Promise.all(paths.map((p) => rm(p, { force: true })));
}
