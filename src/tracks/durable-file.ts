import { FileHandle, link, open, rename, stat } from 'node:fs/promises';
import { PRIVATE_FILE_MODE } from '../config/private-files';

/** Small file primitives the track store needs for atomic, durable writes and bounded reads. */

export class WrongLength extends Error {
  constructor(readonly actual: number) {
    super(`unexpected length ${actual}`);
  }
}

/** Reads a file that must be exactly `length` bytes, without trusting it to be small. */
export async function readExactly(path: string, length: number): Promise<Buffer> {
  const handle = await open(path, 'r');
  try {
    const { size } = await handle.stat();
    if (size !== length) throw new WrongLength(size);
    const buffer = Buffer.allocUnsafe(length);
    let filled = 0;
    while (filled < length) {
      const { bytesRead } = await handle.read(buffer, filled, length - filled, filled);
      if (bytesRead === 0) throw new WrongLength(filled);
      filled += bytesRead;
    }
    return buffer;
  } finally {
    await handle.close();
  }
}

export async function writeAll(handle: FileHandle, bytes: Buffer): Promise<void> {
  let written = 0;
  while (written < bytes.length) {
    const result = await handle.write(bytes, written, bytes.length - written);
    written += result.bytesWritten;
  }
}

export async function writeDurably(path: string, bytes: Buffer): Promise<void> {
  const handle = await open(path, 'wx', PRIVATE_FILE_MODE);
  try {
    await writeAll(handle, bytes);
    await handle.sync();
  } finally {
    await handle.close();
  }
}

export async function syncDirectory(dir: string): Promise<void> {
  const handle = await open(dir, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

export function isMissing(err: unknown): boolean {
  return (err as NodeJS.ErrnoException | undefined)?.code === 'ENOENT';
}

/** Renames `from` to `to`; false when `from` is not there. */
export async function renameIfPresent(from: string, to: string): Promise<boolean> {
  try {
    await rename(from, to);
    return true;
  } catch (err) {
    if (isMissing(err)) return false;
    throw err;
  }
}

/** Hard-links `from` at `to` unless `to` exists (or `from` is gone). */
export async function linkIfAbsent(from: string, to: string): Promise<void> {
  try {
    await link(from, to);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code !== 'EEXIST' && code !== 'ENOENT') throw err;
  }
}

/** A data file's size, or undefined when there is none. */
export async function sizeOnDisk(path: string): Promise<number | undefined> {
  try {
    const info = await stat(path);
    return info.isFile() ? info.size : undefined;
  } catch (err) {
    if (isMissing(err)) return undefined;
    throw err;
  }
}
