import type { TapeLife } from '../chain/tape-life';

/**
 * What the site routes read from the outside world, behind one port (the DI token) so the name
 * cache can be tested with a deliberately simple fake: a tape's status and some of its names,
 * read together, and the verified bytes of a small object (`_site.json`). Production:
 * ChainSiteSource.
 */

/** One named object of a site, as its chain record describes it. */
export interface SiteObject {
  name: string;
  kind: 'blob' | 'manifest';
  /** 32-byte track commitment (the ETag). */
  commitment: Buffer;
  /** Lowercase hex of the commitment. */
  commitmentHex: string;
  /** Payload size in bytes. */
  size: number;
  contentType: string;
}

/** Active (and for how long), expired, or no such tape: the program's rule, src/chain/tape-life.ts. */
export type TapeStatus = TapeLife;

export interface SiteRead {
  /** The tape's status, when it was asked for. */
  status?: TapeStatus;
  /** Each name asked for, in order: its object, or null when the tape has no such name. */
  objects: (SiteObject | null)[];
}

export abstract class SiteSource {
  /**
   * These names of the tape, and its status when `withStatus`, in one request to the chain
   * (getMultipleAccounts of the name addresses): never a listing of the tape.
   */
  abstract read(tape: string, names: readonly string[], withStatus: boolean): Promise<SiteRead>;

  /** The whole verified payload of an object (only called for small objects). */
  abstract readWhole(object: SiteObject): Promise<Buffer>;
}
