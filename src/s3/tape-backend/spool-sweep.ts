import { readdir, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';

/**
 * Removes the entries of `dir` (files or directories) last modified more than `maxAgeMs` ago:
 * what a crashed or killed gateway left behind. Younger entries are kept, since another gateway
 * sharing the data directory may be using them. Returns how many were removed.
 */
export async function sweepOldEntries(
  dir: string,
  maxAgeMs: number,
  now = Date.now(),
): Promise<number> {
  let removed = 0;
  for (const name of await readdir(dir).catch(() => [] as string[])) {
    const path = join(dir, name);
    const info = await stat(path).catch(() => undefined);
    if (!info || now - info.mtimeMs <= maxAgeMs) continue;
    await rm(path, { recursive: true, force: true });
    removed++;
  }
  return removed;
}
