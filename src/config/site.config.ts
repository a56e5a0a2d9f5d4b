import {
  IsBoolean,
  IsIn,
  IsObject,
  IsOptional,
  IsString,
  Matches,
  MaxLength,
} from 'class-validator';
import { IntRange } from './config-decorators';

/** How path-served sites are kept apart (src/site/path-isolation.ts). */
export const PATH_ISOLATION_MODES = ['sandbox', 'redirect'] as const;
export type PathIsolationMode = (typeof PATH_ISOLATION_MODES)[number];

/**
 * Sandbox keywords an operator may grant path-served sites (`allow-<name>`). Never
 * `same-origin` (it would hand the document back the gateway's shared origin), nor unconditional
 * `top-navigation` or `storage-access-by-user-activation`.
 */
export const PATH_SANDBOX_FLAGS = [
  'scripts',
  'forms',
  'popups',
  'popups-to-escape-sandbox',
  'modals',
  'downloads',
  'pointer-lock',
  'orientation-lock',
  'presentation',
  'top-navigation-by-user-activation',
] as const;

export const DEFAULT_PATH_SANDBOX_FLAGS: readonly string[] = [
  'scripts',
  'forms',
  'popups',
  'popups-to-escape-sandbox',
  'modals',
  'downloads',
];

/**
 * An exact name under `.well-known/` (RFC 8615) an operator may let sites publish: every segment
 * visible (no leading `.`), no whitespace, control characters, `*` or empty segments, and never
 * under `acme-challenge/` (certificates for the gateway's hosts are the gateway's business).
 */
export const WELL_KNOWN_ALLOW_NAME =
  // eslint-disable-next-line no-control-regex -- refusing control characters is the point
  /^\.well-known(?!\/acme-challenge(?:\/|$))(?:\/[^/.\s*\u0000-\u001f\u007f][^/\s*\u0000-\u001f\u007f]*)+$/;

/** `gateway.site.*`: how sites are mapped to hostnames and which headers they get. */
export class SiteConfig {
  /** Exact hostname -> tape address, served from the domain root. */
  @IsObject()
  domains: Record<string, string> = {};

  /** `<label>.<suffix>` serves the tape whose label it is. Empty disables subdomains. */
  @IsString()
  subdomain_suffix = 'localhost:8080';

  /** Serve any host whose `_tape.<host>` TXT record (DNSSEC-validated) names a tape. */
  @IsBoolean()
  txt_domains = false;

  /**
   * Validating resolvers for TXT bindings: `ip`, `ip:port` or `[v6]:port`, tried in order.
   * Empty = the `nameserver` lines of /etc/resolv.conf. They must validate DNSSEC (AD flag).
   */
  @IsString({ each: true })
  dns_resolvers: string[] = [];

  /**
   * With `txt_domains` on, resolvers must be on loopback (the gateway trusts their AD flag) unless
   * this says the path to them is trusted (a private network the operator controls).
   */
  @IsBoolean()
  dns_resolvers_trusted = false;

  /** How long one resolver may take to answer one query before the next one is tried. */
  @IntRange(50, 30000)
  dns_timeout_ms = 2000;

  /** Seconds a failed binding lookup (NXDOMAIN, NODATA, no AD, SERVFAIL, timeout) is cached. */
  @IntRange(1, 3600)
  dns_negative_ttl_secs = 30;

  /** Bindings kept in memory (LRU); misses are kept in a second LRU of the same size. */
  @IntRange(1, 1000000)
  dns_cache_entries = 10000;

  /** DNS queries in flight at once; lookups past it are answered as a miss, uncached. */
  @IntRange(1, 10000)
  dns_max_inflight = 64;

  @IsBoolean()
  spa_fallback = false;

  /** When false, `_site.json` is ignored entirely. */
  @IsBoolean()
  tenant_overrides = true;

  @IsString({ each: true })
  cors_origins: string[] = [];

  @IsString({ each: true })
  connect_origins: string[] = [];

  @IntRange(0, 31536000)
  max_age_secs = 60;

  /** Bytes of verified object content kept in the in-memory LRU. */
  @IntRange(0)
  cache_bytes = 256 * 1024 * 1024;

  @IsOptional()
  @IsString()
  public_url?: string;

  /**
   * Host names that are the gateway itself: requests on them keep their URL (`/site/…`,
   * `/object/…`, `/healthz`). The host parts of `subdomain_suffix` and `public_url` are added
   * to these. Every other host is looked at as a site host (docs/site.md).
   */
  @IsString({ each: true })
  gateway_hosts: string[] = ['localhost', '127.0.0.1', '::1'];

  /** Whether a site's `_site.json` may use `*` in `cors_origins` and `connect_origins`. */
  @IsBoolean()
  tenant_wildcard_origins = false;

  /** Longest time a site's object list is cached; also never longer than the site's max-age. */
  @IntRange(1, 3600)
  name_cache_secs = 60;

  /**
   * While the chain's subscription to tape pointers is down, the pointers of the sites in memory
   * are read this often (docs/site.md, "Sites from versions").
   */
  @IntRange(100, 3_600_000)
  pointer_poll_ms = 500;

  /** Objects up to this size are kept whole (and compressed) in the LRU; larger ones stream. */
  @IntRange(0, 64 * 1024 * 1024)
  cache_object_max_bytes = 2 * 1024 * 1024;

  /**
   * How sites served by path (`/site/{tape}/…`, all on the gateway's one origin) are kept apart
   * (docs/site.md, "Isolation of path-served sites"): `sandbox` serves them as sandboxed
   * documents in opaque origins; `redirect` answers 308 to `<label>.<subdomain_suffix>`.
   */
  @IsIn(PATH_ISOLATION_MODES)
  path_isolation: PathIsolationMode = 'sandbox';

  /** The `allow-*` keywords of that sandbox (never `same-origin`). */
  @IsIn(PATH_SANDBOX_FLAGS, { each: true })
  path_sandbox_allow: string[] = [...DEFAULT_PATH_SANDBOX_FLAGS];

  /**
   * Exact `.well-known/` names sites may publish (`.well-known/security.txt`); none by default.
   * This gateway certifies versions holding only these `.well-known/` names and serves only
   * these (docs/operator.md, "Publishing .well-known/ names").
   */
  @MaxLength(1024, { each: true })
  @Matches(WELL_KNOWN_ALLOW_NAME, {
    each: true,
    message:
      'must list exact names under .well-known/ (e.g. .well-known/security.txt): visible segments, no *, no whitespace, not acme-challenge/',
  })
  well_known_allow: string[] = [];
}
