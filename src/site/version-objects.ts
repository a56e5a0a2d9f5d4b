import { nameProblem, VersionEntry } from '../versions/version-entry';
import { CommitEntry, VersionRoot } from '../versions/version-nodes';
import { VersionReader } from '../versions/version-reader';
import { SiteObject } from './site-source';

/**
 * Names of one version as site objects. A name no version may hold (hidden, malformed) is never
 * looked up, so it is never served whatever a version's bytes say; a `.well-known/` name gets
 * here only when the operator allows it (site-path.ts). The reader checks every node it
 * descends into against the branch naming it.
 */
export function versionObjects(
  reader: VersionReader,
  version: VersionRoot,
  names: readonly string[],
): Promise<(SiteObject | null)[]> {
  return Promise.all(
    names.map(async (name) => {
      if (nameProblem(name) !== undefined) return null;
      const entry = await reader.lookupName(version, name);
      return entry ? entryObject(entry) : null;
    }),
  );
}

/** A version entry (or a commits-tree entry, named by the caller) as a site object. */
export function entryObject(entry: VersionEntry | (CommitEntry & { name: string })): SiteObject {
  const loc = entry.location;
  return {
    name: entry.name,
    kind: loc.kind === 'stream' ? 'manifest' : loc.kind,
    commitment: entry.commitment,
    commitmentHex: entry.commitment.toString('hex'),
    size: entry.size,
    contentType: entry.contentType,
    packed:
      loc.kind === 'packed'
        ? { pack: loc.pack, packSize: loc.packSize, offset: loc.offset }
        : undefined,
  };
}
