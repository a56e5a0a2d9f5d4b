/** What a request's host names: a tape (and how it was bound), nothing, or an unusable host. */
export type HostResolution =
  | { kind: 'tape'; tape: string; via: 'domain' | 'subdomain' | 'txt' }
  | { kind: 'none' }
  | { kind: 'invalid'; reason: string };

export const NO_SITE: HostResolution = Object.freeze({ kind: 'none' });
