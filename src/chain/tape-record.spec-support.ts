import { KeptVersion, TapeRecord } from './account-layouts';

/**
 * The version fields of a tape whose current version is `version` with this root (and no other
 * kept version): what specs spread into a TapeRecord. `bytes` is the version's certified size.
 */
export function atVersion(
  version: number,
  root: Buffer,
  bytes = 0,
): Pick<TapeRecord, 'version' | 'latestVersion' | 'sequence' | 'history'> {
  const history: KeptVersion[] = version > 0 ? [{ version, root, bytes, publishedAt: 0 }] : [];
  return { version, latestVersion: version, sequence: version, history };
}

/**
 * The version fields of a tape at `version` keeping these versions (number and root, any
 * order), the highest of them its latest.
 */
export function keeping(
  version: number,
  kept: Array<[number, Buffer]>,
): Pick<TapeRecord, 'version' | 'latestVersion' | 'sequence' | 'history'> {
  const history = kept
    .map(([n, root]) => ({ version: n, root, bytes: 0, publishedAt: 0 }))
    .sort((a, b) => a.version - b.version);
  const latestVersion = Math.max(version, ...kept.map(([n]) => n));
  return { version, latestVersion, sequence: latestVersion, history };
}
