/**
 * What the site routes read from the outside world, behind one port (the DI token) so the name
 * cache can be tested with a deliberately simple fake: a tape's status, its object list, and the
 * verified bytes of a small object (`_site.json`). Production: ChainSiteSource.
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

export type TapeStatus =
  | {
      kind: 'active';
      /** Milliseconds until the reservation ends (chain clock). */ expiresInMs: number;
    }
  | { kind: 'expired' }
  | { kind: 'unknown' };

export abstract class SiteSource {
  abstract tapeStatus(tape: string): Promise<TapeStatus>;

  /** Every object name of the tape, in one request. */
  abstract listObjects(tape: string): Promise<SiteObject[]>;

  /** The whole verified payload of an object (only called for small objects). */
  abstract readWhole(object: SiteObject): Promise<Buffer>;
}
