import { ALIAS_NAME_MAX, KeptVersion, TapeRecord } from './account-layouts';

/** The version served at "/" (undefined while the tape has published none). */
export function currentVersion(t: TapeRecord): KeptVersion | undefined {
  return t.version > 0 ? keptVersion(t, t.version) : undefined;
}

/** Version `n` if the tape still keeps it. */
export function keptVersion(t: TapeRecord, n: number): KeptVersion | undefined {
  return t.history.find((v) => v.version === n);
}

/** The version an alias points at (undefined for an unknown alias). */
export function aliasVersion(t: TapeRecord, name: string): KeptVersion | undefined {
  const alias = t.aliases.find((a) => a.name === name);
  return alias ? keptVersion(t, alias.version) : undefined;
}

/** The aliases that point at version `n`, in table order. */
export function aliasesOf(t: TapeRecord, n: number): string[] {
  return t.aliases.filter((a) => a.version === n).map((a) => a.name);
}

const ALIAS_PATTERN = /^[a-z0-9](?:[a-z0-9-]*[a-z0-9])?$/;
const PINNED_PATTERN = /^v[0-9]+$/;

/**
 * An alias name: 1..24 bytes of `[a-z0-9-]`, alphanumeric at both ends, no `--` (the
 * separator of `<alias>--<label>` hosts), and not `v<digits>` (the pinned-version host).
 */
export function isAliasName(name: string): boolean {
  return (
    name.length >= 1 &&
    name.length <= ALIAS_NAME_MAX &&
    ALIAS_PATTERN.test(name) &&
    !name.includes('--') &&
    !PINNED_PATTERN.test(name)
  );
}

/**
 * The version numbers a tape keeps: the current one, every aliased one and the `keep`
 * highest numbers in its history table (docs/program.md, "Kept set").
 */
export function keptSet(
  t: Pick<TapeRecord, 'version' | 'keep' | 'history' | 'aliases'>,
): Set<number> {
  const kept = new Set<number>();
  if (t.version > 0) kept.add(t.version);
  for (const a of t.aliases) kept.add(a.version);
  const newest = t.history.map((v) => v.version).sort((a, b) => b - a);
  for (const n of newest.slice(0, t.keep)) kept.add(n);
  return kept;
}

/** The history table without the entries outside the kept set (what the program's eviction leaves). */
export function evictUnkept(
  t: Pick<TapeRecord, 'version' | 'keep' | 'history' | 'aliases'>,
): KeptVersion[] {
  const kept = keptSet(t);
  return t.history.filter((v) => kept.has(v.version));
}

/** The version fields of a tape after a Publish of `entry` (live, or under `alias`), evicted. */
export function afterPublish(
  t: Pick<TapeRecord, 'version' | 'keep' | 'history' | 'aliases'>,
  entry: KeptVersion,
  alias = '',
): Pick<TapeRecord, 'version' | 'history' | 'aliases'> {
  const aliases = alias
    ? t.aliases.some((a) => a.name === alias)
      ? t.aliases.map((a) => (a.name === alias ? { name: alias, version: entry.version } : a))
      : [...t.aliases, { name: alias, version: entry.version }]
    : t.aliases;
  const next = {
    version: alias ? t.version : entry.version,
    keep: t.keep,
    history: [...t.history, entry],
    aliases,
  };
  return { version: next.version, history: evictUnkept(next), aliases };
}

/**
 * The tape as a Publish leaves it (the program's effect, docs/program.md "Publish"): the next
 * version number, live or under `alias`, `keptBytes` as certified, unkept versions evicted.
 */
export function applyPublish(
  t: TapeRecord,
  p: { root: Buffer; bytes: number; keptBytes: number; publishedAt: number; alias?: string },
): TapeRecord {
  const version = t.latestVersion + 1;
  const entry = { version, root: p.root, bytes: p.bytes, publishedAt: p.publishedAt };
  return {
    ...t,
    ...afterPublish(t, entry, p.alias ?? ''),
    latestVersion: version,
    sequence: t.sequence + 1,
    keptBytes: p.keptBytes,
  };
}
