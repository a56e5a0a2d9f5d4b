import { splitFileIntoTracks } from '../../tracks/track-layout';
import { CliError } from '../cli-error';
import { CachedHash, HashCache } from './hash-cache';
import { SiteFile } from './site-scanner';
import { runBounded } from './bounded-pool';

export interface HashedFile extends SiteFile, CachedHash {}

/**
 * Commitments of every file, streamed from disk a few files at a time (each file in one
 * sequential pass; files over the gateway's segment size are split into segments on the way).
 * A file whose stamp the cache holds is not read at all.
 */
export async function hashSiteFiles(
  files: SiteFile[],
  segmentBytes: number,
  options: { concurrency?: number; cache?: HashCache } = {},
): Promise<HashedFile[]> {
  const { concurrency = 4, cache } = options;
  const out = new Array<HashedFile>(files.length);
  await runBounded(files.length, concurrency, async (i) => {
    const file = files[i];
    const cached = cache?.get(file.name, file.stamp);
    if (cached) {
      out[i] = { ...file, ...cached };
      return;
    }
    const readStartMs = Date.now();
    let hash: CachedHash;
    let size: number;
    try {
      const layout = await splitFileIntoTracks(file.path, segmentBytes);
      size = layout.size;
      hash =
        layout.kind === 'blob'
          ? { commitment: layout.digest.commitment, layout: { kind: 'blob' } }
          : {
              commitment: layout.manifestDigest.commitment,
              layout: { kind: 'stream', manifestBytes: layout.manifestBytes.length },
            };
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      throw new CliError(`cannot read ${file.name} (${code ?? (err as Error).message})`);
    }
    // A file that grew or shrank while it was read keeps the size read; it is not cached.
    if (size === file.size) cache?.set(file.name, file.stamp, hash, readStartMs);
    out[i] = { ...file, size, ...hash };
  });
  return out;
}
