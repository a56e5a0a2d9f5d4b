import { NO_VERSION, SiteObject, SitePointer, SiteSource } from './site-source';

/**
 * A site source whose tapes never publish a version: they serve their names, as every tape did
 * before versions (site-directory-versions.spec.ts covers versions).
 */
export abstract class NamesOnlySource extends SiteSource {
  async readVersion(_root: Buffer, _names: readonly string[]): Promise<(SiteObject | null)[]> {
    throw new Error('no versions in this source');
  }

  async versionSettings(_root: Buffer): Promise<Buffer> {
    throw new Error('no versions in this source');
  }

  async pointers(tapes: readonly string[]): Promise<SitePointer[]> {
    return tapes.map(() => NO_VERSION);
  }
}
