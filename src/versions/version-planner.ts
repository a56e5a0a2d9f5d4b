import { PackInput, isPackable, packFiles } from './pack-writer';
import { EntryLocation, VersionEntry, compareNames } from './version-entry';
import { MAX_SETTINGS_BYTES } from './version-nodes';
import { SETTINGS_NAME } from './version-certifier';
import { HEADERS_FILE, MAX_RULES_FILE_BYTES, REDIRECTS_FILE } from './rules/rules-limits';
import {
  compileSiteRules,
  decodeSiteRules,
  encodeSiteRules,
  isRulesFile,
  RulesError,
  SiteRules,
} from './rules/site-rules';

/** A file to publish: its own commitment and how its bytes are laid out when not packed. */
export interface ChangedFile {
  name: string;
  commitment: Buffer;
  size: number;
  contentType: string;
  metadata?: Buffer;
  /** `stream` with the segment manifest's length for files over one segment, else `blob`. */
  layout: { kind: 'blob' } | { kind: 'stream'; manifestBytes: number };
}

export interface VersionChange {
  /** Files written (new or replaced), by name. */
  put: readonly ChangedFile[];
  /** Names removed (S3 DeleteObject, `tape object rm`). */
  remove?: readonly string[];
  /** Keep only the names in `put` (`tape deploy --prune`); else the base's other names stay. */
  prune?: boolean;
}

export interface VersionPlan {
  entries: VersionEntry[];
  /** The `_site.json` bytes the version must carry as settings (empty when none). */
  settings: Buffer;
  /** The compiled `_redirects` and `_headers` the version carries (empty when none). */
  rules: Buffer;
  /** Packs this version adds: upload them before publishing. */
  packs: Array<{ commitment: Buffer; bytes: Buffer }>;
  /** Files whose own tracks (blob, or segments + manifest) this version needs. */
  tracks: ChangedFile[];
  /** Names added, replaced (other bytes) and removed against the base. */
  added: string[];
  changed: string[];
  removed: string[];
}

/**
 * The next version of a site from its current one and a change (docs/versions.md,
 * "Concurrency": publishers rebase by planning again on the version that won). A file whose
 * bytes the base already holds under any name keeps that name's location (and so its pack, and
 * nothing is uploaded); new small files are packed together in name order; bigger ones keep a
 * track of their own.
 */
export async function planVersion(
  baseVersion: { entries: readonly VersionEntry[]; settings: Buffer; rules?: Buffer },
  change: VersionChange,
  readSmall: (file: ChangedFile) => Promise<Buffer>,
): Promise<VersionPlan> {
  const base = baseVersion.entries;
  const byName = new Map<string, VersionEntry>();
  if (change.prune !== true) for (const e of base) byName.set(e.name, e);
  for (const name of change.remove ?? []) byName.delete(name);

  const known = new Map<string, EntryLocation>();
  for (const e of base) known.set(e.commitment.toString('hex'), e.location);

  const toPack: Array<{ file: ChangedFile; bytes: Buffer }> = [];
  const tracks: ChangedFile[] = [];
  const fresh = new Map<string, VersionEntry>();
  const puts = [...change.put].sort((a, b) => compareNames(a.name, b.name));
  for (const file of puts) {
    const entry = {
      name: file.name,
      commitment: file.commitment,
      size: file.size,
      contentType: file.contentType,
      metadata: file.metadata ?? Buffer.alloc(0),
    };
    const reuse = known.get(file.commitment.toString('hex'));
    if (reuse !== undefined) {
      fresh.set(file.name, { ...entry, location: reuse });
    } else if (isPackable(file.size) && file.layout.kind === 'blob') {
      toPack.push({ file, bytes: await readSmall(file) });
    } else {
      tracks.push(file);
      known.set(file.commitment.toString('hex'), file.layout);
      fresh.set(file.name, { ...entry, location: file.layout });
    }
  }
  const packed = packFiles(dedupeByCommitment(toPack));
  for (const { file } of toPack) {
    const hex = file.commitment.toString('hex');
    const at = packed.placements.get(hex)!;
    const pack = packed.packs[at.pack];
    const location: EntryLocation = {
      kind: 'packed',
      pack: pack.commitment,
      packSize: pack.bytes.length,
      offset: at.offset,
    };
    fresh.set(file.name, {
      name: file.name,
      commitment: file.commitment,
      size: file.size,
      contentType: file.contentType,
      metadata: file.metadata ?? Buffer.alloc(0),
      location,
    });
  }

  const added: string[] = [];
  const changed: string[] = [];
  for (const [name, entry] of fresh) {
    const before = byName.get(name);
    if (before === undefined) added.push(name);
    else if (!before.commitment.equals(entry.commitment)) changed.push(name);
    byName.set(name, entry);
  }
  const removed = base.filter((e) => !byName.has(e.name)).map((e) => e.name);
  const entries = [...byName.values()];
  return {
    entries,
    settings: await settingsOf(entries, fresh, baseVersion.settings, readSmall),
    rules: await rulesOf(entries, fresh, baseVersion.rules, readSmall),
    packs: packed.packs,
    tracks,
    added: added.sort(compareNames),
    changed: changed.sort(compareNames),
    removed: removed.sort(compareNames),
  };
}

/** One copy of each distinct small file's bytes, keyed by commitment for placement lookups. */
function dedupeByCommitment(items: Array<{ file: ChangedFile; bytes: Buffer }>): PackInput[] {
  const seen = new Set<string>();
  const out: PackInput[] = [];
  for (const { file, bytes } of items) {
    const hex = file.commitment.toString('hex');
    if (seen.has(hex)) continue;
    seen.add(hex);
    out.push({ name: hex, bytes });
  }
  return out;
}

/**
 * The settings a version carries: the bytes of its `_site.json` (docs/versions.md, "Encoding"),
 * read from the change when it wrote one, else the base version's.
 */
async function settingsOf(
  entries: VersionEntry[],
  fresh: Map<string, VersionEntry>,
  baseSettings: Buffer,
  readSmall: (file: ChangedFile) => Promise<Buffer>,
): Promise<Buffer> {
  const entry = entries.find((e) => e.name === SETTINGS_NAME);
  if (entry === undefined || entry.size > MAX_SETTINGS_BYTES) return Buffer.alloc(0);
  const written = fresh.get(SETTINGS_NAME);
  if (written === undefined) return baseSettings;
  return readSmall({ ...written, layout: { kind: 'blob' } });
}

/**
 * The compiled rules a version carries (docs/versions.md, "Encoding"): each of `_redirects` and
 * `_headers` compiled from the change when it wrote that file, else the base's compiled part
 * (each part comes from its own file only); a RulesError names every problem of a written file.
 */
async function rulesOf(
  entries: VersionEntry[],
  fresh: Map<string, VersionEntry>,
  baseRules: Buffer | undefined,
  readSmall: (file: ChangedFile) => Promise<Buffer>,
): Promise<Buffer> {
  const present = new Set(entries.filter((e) => isRulesFile(e.name)).map((e) => e.name));
  const written = async (name: string): Promise<Buffer | undefined> => {
    const entry = fresh.get(name);
    if (entry === undefined) return undefined;
    if (entry.size > MAX_RULES_FILE_BYTES) {
      throw new RulesError([
        `${name}: ${entry.size} bytes, over the ${MAX_RULES_FILE_BYTES}-byte limit`,
      ]);
    }
    return readSmall({ ...entry, layout: { kind: 'blob' } });
  };
  const redirects = await written(REDIRECTS_FILE);
  const headers = await written(HEADERS_FILE);
  const compiled = compileSiteRules({ redirects, headers });
  // The base's parts are decoded only when kept (and checked again: a part the fence refuses,
  // from a version certified without it, fails here rather than at the certifier).
  let base: SiteRules | undefined;
  const baseRulesOf = () => (base ??= decodeSiteRules(baseRules ?? Buffer.alloc(0)));
  return encodeSiteRules({
    redirects: !present.has(REDIRECTS_FILE)
      ? []
      : redirects !== undefined
        ? compiled.redirects
        : baseRulesOf().redirects,
    headers: !present.has(HEADERS_FILE)
      ? []
      : headers !== undefined
        ? compiled.headers
        : baseRulesOf().headers,
  });
}
