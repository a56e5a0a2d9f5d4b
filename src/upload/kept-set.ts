import type { KeptVersion, TapeRecord } from '../chain/account-layouts';
import { afterPublish } from '../chain/tape-history';
import type { TrackSizes } from '../versions/version-tracks';

/** What a Publish of `root` (under `alias`, or live) makes of the tape's table. */
export interface TableAfterPublish {
  /** The number the new version gets: latest_version + 1. */
  version: number;
  /** The versions kept after the Publish, ascending (the new one among them). */
  kept: KeptVersion[];
}

/**
 * The program's Publish, on the table only (docs/program.md, "Publish"; `afterPublish`):
 * append the new version as latest_version + 1, make it current (or point the alias at it),
 * evict everything outside the kept set (current ∪ aliases ∪ the `keep` highest numbers). The
 * certifier counts the bytes of `kept` and signs them as the Publish's `kept_bytes`.
 */
export function tableAfterPublish(
  tape: Pick<TapeRecord, 'version' | 'latestVersion' | 'keep' | 'history' | 'aliases'>,
  root: Buffer,
  versionBytes: number,
  alias?: string,
): TableAfterPublish {
  const version = tape.latestVersion + 1;
  const after = afterPublish(tape, { version, root, bytes: versionBytes, publishedAt: 0 }, alias);
  return { version, kept: after.history };
}

/**
 * Unique bytes of several versions' tracks (a track shared by two versions counts once), plus
 * `extra` bytes counted whole (versions whose tracks are not known here).
 */
export function uniqueBytes(versions: readonly TrackSizes[], extra = 0): number {
  const seen = new Set<string>();
  let sum = extra;
  for (const tracks of versions) {
    for (const [hex, size] of tracks) {
      if (seen.has(hex)) continue;
      seen.add(hex);
      sum += size;
    }
  }
  return sum;
}
