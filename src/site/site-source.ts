import type { TapeRecord } from '../chain/account-layouts';
import type { TapeLife } from '../chain/tape-life';
import { currentVersion } from '../chain/tape-history';
import { VersionSelector } from '../domains/version-selector';
import type { TrackRef } from '../tracks/object-reader';

/**
 * What the site routes read from the outside world, behind one port (the DI token) so the name
 * cache can be tested with a deliberately simple fake: a tape's status and pointer and some of
 * its names, read together; names of a published version; and the verified bytes of a small
 * object (`_site.json`). Production: ChainSiteSource.
 */

/** One named object of a site, as its chain record or its version entry describes it. */
export interface SiteObject {
  name: string;
  /** `packed`: a range of a pack track (docs/versions.md, "Packs"), see `packed`. */
  kind: 'blob' | 'manifest' | 'packed';
  /** 32-byte commitment of the file's own bytes (the ETag), a segment manifest's when streamed. */
  commitment: Buffer;
  /** Lowercase hex of the commitment. */
  commitmentHex: string;
  /** Payload size in bytes. */
  size: number;
  contentType: string;
  /** Where a packed file's bytes are. */
  packed?: { pack: Buffer; packSize: number; offset: number };
}

/** Active (and for how long), expired, or no such tape: the program's rule, src/chain/tape-life.ts. */
export type TapeStatus = TapeLife;

/** A version the tape keeps (docs/versions.md, "History and aliases"): its number and root. */
export interface KeptRoot {
  version: number;
  root: Buffer;
}

/** An alias of the tape and the version it names. */
export interface AliasRoot {
  name: string;
  version: number;
}

/**
 * The tape's site pointer (docs/program.md): the current version (0 = none published, an empty
 * site), its root, and the table it is one entry of: every version the tape keeps and its
 * aliases, with the `sequence` that moves on every change of any of them (a rollback, a
 * promote or an alias change moves no root of the current version, but always the sequence).
 */
export interface SitePointer {
  version: number;
  /** Commitment of the current version's root; zeros while version is 0. */
  root: Buffer;
  sequence: number;
  /** The kept versions, ascending by number (the current one among them). */
  history: readonly KeptRoot[];
  aliases: readonly AliasRoot[];
}

export const NO_VERSION: SitePointer = {
  version: 0,
  root: Buffer.alloc(32),
  sequence: 0,
  history: [],
  aliases: [],
};

/** The pointer a tape record holds (one place: reads, polls and notifications alike). */
export function pointerOfRecord(record: TapeRecord | null): SitePointer {
  if (record === null) return NO_VERSION;
  const current = currentVersion(record);
  return {
    version: current ? record.version : 0,
    root: current ? current.root : NO_VERSION.root,
    sequence: record.sequence,
    history: record.history.map((v) => ({ version: v.version, root: v.root })),
    aliases: record.aliases.map((a) => ({ name: a.name, version: a.version })),
  };
}

/** Whether two pointers name the same table (the same sequence, current version and root). */
export function samePointer(a: SitePointer, b: SitePointer): boolean {
  return a.sequence === b.sequence && a.version === b.version && a.root.equals(b.root);
}

export interface SiteRead {
  /** The tape's status, when it was asked for. */
  status?: TapeStatus;
  /** The tape's pointer, with its status. */
  pointer?: SitePointer;
  /** Each name asked for, in order: its object, or null when the tape has no such name. */
  objects: (SiteObject | null)[];
}

export abstract class SiteSource {
  /**
   * These names of the tape, and its status and pointer when `withStatus`, in one request to
   * the chain (getMultipleAccounts of the name addresses): never a listing of the tape.
   */
  abstract read(tape: string, names: readonly string[], withStatus: boolean): Promise<SiteRead>;

  /**
   * These names in the version whose root is `root` (verified nodes from the store); null where
   * the version has no such name. Hidden names are never looked up (the caller's path rules).
   */
  abstract readVersion(root: Buffer, names: readonly string[]): Promise<(SiteObject | null)[]>;

  /** The version's settings: the bytes of its `_site.json` (empty when it has none). */
  abstract versionSettings(root: Buffer): Promise<Buffer>;

  /** Pointers of these tapes (null: no such tape), for the polling fallback: one request per 100. */
  abstract pointers(tapes: readonly string[]): Promise<(SitePointer | null)[]>;

  /** The whole verified payload of an object (only called for small objects). */
  abstract readWhole(object: SiteObject): Promise<Buffer>;
}

/** How the object reader opens a site object. */
export function trackRefOf(object: SiteObject): TrackRef {
  if (object.kind === 'packed') {
    const p = object.packed!;
    return {
      kind: 'packed',
      commitment: object.commitment,
      size: object.size,
      pack: p.pack,
      packSize: p.packSize,
      offset: p.offset,
    };
  }
  return { kind: object.kind, commitment: object.commitment, size: object.size };
}

/** The kept version a selector names in this pointer, or undefined when the tape keeps none. */
export function selectVersion(
  pointer: SitePointer,
  selector: VersionSelector,
): KeptRoot | undefined {
  let version: number;
  if (selector.kind === 'pinned') {
    version = selector.version;
  } else {
    const alias = pointer.aliases.find((a) => a.name === selector.name);
    if (alias === undefined) return undefined;
    version = alias.version;
  }
  return pointer.history.find((v) => v.version === version);
}
