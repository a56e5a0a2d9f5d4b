import type { CspAdditions } from '../versions/rules/header-fence';
import { OriginList } from '../config/origin';
import { SiteOverrides } from './site-settings';

/**
 * The settings one site is served with: the gateway's, overridden field by field by the site's
 * `_site.json`. Everything a response needs is rendered to header text once here, so the hot
 * path only copies strings.
 *
 * Merging: `spa_fallback` and `max_age_secs` from the site replace the gateway's. The site's
 * `cors_origins` replaces the gateway's list (the site decides who may read it; absent = the
 * gateway's list). `connect_origins` is the union of both (the issue: "connect-src extended by
 * the gateway's and the site's connect_origins").
 */
export interface SitePolicy {
  spaFallback: boolean;
  maxAgeSecs: number;
  cacheControl: string;
  /** The site's policy (spec 4.1), as sent on hostname routes: the site's own origin. */
  contentSecurityPolicy: string;
  /**
   * The policy list sent on path routes (`/site/{tape}/…`, the gateway's shared origin): the
   * site's policy plus the isolation sandbox, as two comma-separated policies a browser
   * enforces both of (path-isolation.ts).
   */
  sharedOriginContentSecurityPolicy: string;
  /** `*` in cors_origins: any origin may read (answered with `*`). */
  corsAny: boolean;
  /** Origins allowed to read, in normal form. */
  corsOrigins: ReadonlySet<string>;
  /**
   * `X-Tape-Version` of every answer of a site served from a published version (the version
   * number, counting from 1 per tape); absent for a tape served from its names.
   */
  version?: string;
  /**
   * `X-Robots-Tag` of a pinned or alias answer (`noindex`: a preview or an old version must not
   * compete with the live site in search results); absent on the live site.
   */
  robots?: string;
  /**
   * A path's policy kept in its snapshot (site-path-policy.ts): answers prepared under it may
   * be memoised. A path policy without it is built for one request (the snapshot's memo of
   * path policies is full) and nothing prepared under it is kept.
   */
  memoised?: true;
  /** Headers a site's `_headers` sets for the path answered (site-path-policy.ts), lowercase. */
  extraHeaders?: Readonly<Record<string, string>>;
  /** What the built-in policy was made of, so a path's `_headers` can add sources to it. */
  csp: { connectAny: boolean; connectOrigins: readonly string[]; pathSandbox: string };
}

export interface GatewaySiteDefaults {
  spaFallback: boolean;
  maxAgeSecs: number;
  corsOrigins: OriginList;
  connectOrigins: OriginList;
  /** The sandbox policy of path-served documents (`sandbox allow-…`, path-isolation.ts). */
  pathSandbox: string;
}

export function buildSitePolicy(gateway: GatewaySiteDefaults, site: SiteOverrides): SitePolicy {
  const maxAgeSecs = site.maxAgeSecs ?? gateway.maxAgeSecs;
  const cors = site.corsOrigins ?? gateway.corsOrigins;
  const connectAny = gateway.connectOrigins.any || (site.connectOrigins?.any ?? false);
  const connect = new Set([
    ...gateway.connectOrigins.origins,
    ...(site.connectOrigins?.origins ?? []),
  ]);
  const csp = contentSecurityPolicy(connectAny, [...connect]);
  return {
    csp: { connectAny, connectOrigins: [...connect], pathSandbox: gateway.pathSandbox },
    spaFallback: site.spaFallback ?? gateway.spaFallback,
    maxAgeSecs,
    cacheControl: cacheControlFor(maxAgeSecs),
    contentSecurityPolicy: csp,
    sharedOriginContentSecurityPolicy: `${csp}, ${gateway.pathSandbox}`,
    corsAny: cors.any,
    corsOrigins: new Set(cors.origins),
  };
}

/** Answers of a pinned version (`/site/{tape}@<n>/`, `v<n>--<label>`): its bytes never change. */
export const IMMUTABLE_CACHE_CONTROL = 'public, max-age=31536000, immutable';

export function cacheControlFor(maxAgeSecs: number): string {
  return `public, max-age=${maxAgeSecs}, must-revalidate`;
}

/**
 * A same-origin policy that a normal static site works under: its own scripts, styles
 * (inline styles too: frameworks and SVGs use them), images, fonts and media, data:/blob: URLs
 * for images, media and fonts (generated previews, inlined icons), workers from itself, frames
 * of itself. No inline scripts or eval, no plugins, no framing by other origins, no <base>
 * hijack, forms post only to itself. `connect-src` (fetch, XHR, WebSocket, EventSource) is
 * 'self' plus the allowed origins; `*` allows any http(s) and ws(s) endpoint.
 *
 * Entries come from parseOrigin, so they cannot contain `;`, `,`, spaces or quotes.
 */
export function contentSecurityPolicy(
  connectAny: boolean,
  connectOrigins: readonly string[],
  added: CspAdditions = {},
): string {
  const connect = connectAny ? '* ws: wss:' : ["'self'", ...connectOrigins].join(' ');
  // A site's `_headers` adds sources (checked by the fence: no `;`, `,` or keyword that loosens).
  const plus = (directive: keyof CspAdditions, base: string): string => {
    const extra = (added[directive] ?? []).filter((s) => !base.split(' ').includes(s));
    return extra.length === 0 ? `${directive} ${base}` : `${directive} ${base} ${extra.join(' ')}`;
  };
  return [
    "default-src 'self'",
    plus('script-src', "'self'"),
    plus('style-src', "'self' 'unsafe-inline'"),
    plus('img-src', "'self' data: blob:"),
    plus('media-src', "'self' data: blob:"),
    plus('font-src', "'self' data:"),
    plus('connect-src', connect),
    "worker-src 'self' blob:",
    "manifest-src 'self'",
    plus('frame-src', "'self'"),
    "frame-ancestors 'self'",
    "base-uri 'self'",
    "form-action 'self'",
    "object-src 'none'",
  ].join('; ');
}

/** The policy of responses that are not a site's content (built-in error pages). */
export const ERROR_PAGE_CSP =
  "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'";
