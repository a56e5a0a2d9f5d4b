import { GatewaySiteDefaults } from './site-policy';

/** How a SiteDirectory caches (site-directory.ts): lifetimes, bounds, clock and logging. */
export interface SiteDirectoryOptions {
  defaults: GatewaySiteDefaults;
  tenantOverrides: boolean;
  allowAnyOrigin: boolean;
  nameCacheSecs: number;
  /** How long "no such tape" is remembered (a tape created a moment later shows up soon). */
  unknownTtlSecs?: number;
  staleIfErrorSecs?: number;
  maxSites?: number;
  /** Names (hits and misses) remembered across all sites. */
  maxNames?: number;
  /** Milliseconds, monotonic. */
  now: () => number;
  warn: (message: string) => void;
  /** `.well-known/` names served when a site has them (gateway.site.well_known_allow). */
  wellKnownAllow?: ReadonlySet<string>;
  /** When the misses gathered so far are sent (tests may send them at once). */
  schedule?: (run: () => void) => void;
}

export const DEFAULT_UNKNOWN_TTL_SECS = 5;
export const DEFAULT_STALE_IF_ERROR_SECS = 600;
export const DEFAULT_MAX_SITES = 10_000;
export const DEFAULT_MAX_NAMES = 100_000;
