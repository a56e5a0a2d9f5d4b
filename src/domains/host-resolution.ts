import type { VersionSelector } from './version-selector';

/**
 * What a request's host names: a tape (and how it was bound; under the subdomain suffix
 * perhaps one of its kept versions, `v3--<label>` or `pr-12--<label>`), nothing, an unusable
 * host, or a `<x>--<label>` whose `<x>` can name no version.
 */
export type HostResolution =
  | {
      kind: 'tape';
      tape: string;
      via: 'domain' | 'subdomain' | 'txt';
      selector?: VersionSelector;
    }
  | { kind: 'none' }
  | { kind: 'invalid'; reason: string }
  | { kind: 'bad-version'; reason: string };

export const NO_SITE: HostResolution = Object.freeze({ kind: 'none' });
