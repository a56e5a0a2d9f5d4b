import { TrackLayout, splitFileIntoTracks } from '../../tracks/track-layout';
import { CliError } from '../cli-error';
import { SiteFile } from './site-scanner';
import { runBounded } from './bounded-pool';

export interface HashedFile extends SiteFile {
  layout: TrackLayout;
  /** The commitment the object's name points at: the blob's, or the manifest's for big files. */
  commitment: Buffer;
}

/**
 * Commitments of every file, streamed from disk a few files at a time (each file in one
 * sequential pass; files over the gateway's segment size are split into segments on the way).
 */
export async function hashSiteFiles(
  files: SiteFile[],
  segmentBytes: number,
  concurrency = 4,
  onHashed?: (file: HashedFile) => void,
): Promise<HashedFile[]> {
  const out = new Array<HashedFile>(files.length);
  await runBounded(files.length, concurrency, async (i) => {
    const file = files[i];
    let layout: TrackLayout;
    try {
      layout = await splitFileIntoTracks(file.path, segmentBytes);
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      throw new CliError(`cannot read ${file.name} (${code ?? (err as Error).message})`);
    }
    const commitment =
      layout.kind === 'blob' ? layout.digest.commitment : layout.manifestDigest.commitment;
    out[i] = { ...file, size: layout.size, layout, commitment };
    onHashed?.(out[i]);
  });
  return out;
}
