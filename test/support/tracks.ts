import { mkdtempSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { Readable } from 'node:stream';
import { commitmentOfBuffer } from '../../src/tracks/commitment';
import { FileTrackStore } from '../../src/tracks/file-track-store';

/** A FileTrackStore in a fresh temporary directory. */
export function newTestStore() {
  const root = join(mkdtempSync(join(tmpdir(), 'tracks-')), 'tracks');
  return { store: new FileTrackStore(root), root };
}

/** Every file under a directory (not directories), relative to it, sorted. */
export function filesUnder(dir: string): string[] {
  const out: string[] = [];
  const walk = (d: string) => {
    for (const entry of readdirSync(d, { withFileTypes: true })) {
      const path = join(d, entry.name);
      if (entry.isDirectory()) walk(path);
      else out.push(relative(dir, path));
    }
  };
  walk(dir);
  return out.sort();
}

/** A body delivered in uneven pieces, like a network stream. */
export function bodyOf(data: Buffer, piece = 10_000): Readable {
  const pieces: Buffer[] = [];
  for (let offset = 0; offset < data.length; offset += piece) {
    pieces.push(data.subarray(offset, offset + piece));
  }
  return Readable.from(pieces, { objectMode: false });
}

/** Collects a stream: the bytes it emitted and the error it ended with, if any. */
export async function drain(stream: Readable): Promise<{ bytes: Buffer; error?: Error }> {
  const parts: Buffer[] = [];
  try {
    for await (const part of stream) parts.push(part as Buffer);
    return { bytes: Buffer.concat(parts) };
  } catch (error) {
    return { bytes: Buffer.concat(parts), error: error as Error };
  }
}

/** Puts bytes into a store and returns their commitment. */
export async function putBytes(store: FileTrackStore, data: Buffer): Promise<Buffer> {
  const { commitment } = commitmentOfBuffer(data);
  await store.put(commitment, data.length, bodyOf(data));
  return commitment;
}
