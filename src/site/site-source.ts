import type { TapeLife } from '../chain/tape-life';
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

/** The tape's site pointer (docs/program.md): version 0 = none published, names serve. */
export interface SitePointer {
  version: number;
  /** Commitment of the current version's root; zeros while version is 0. */
  root: Buffer;
}

export const NO_VERSION: SitePointer = { version: 0, root: Buffer.alloc(32) };

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

  /** The version's compiled `_redirects`/`_headers` (its root's rules; empty when none). */
  versionRules(_root: Buffer): Promise<Buffer> {
    return Promise.resolve(Buffer.alloc(0));
  }

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
