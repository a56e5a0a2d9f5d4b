import { labelFromAddress } from '../chain/tape-label';
import { PathIsolationMode } from '../config/site.config';

/**
 * Sites served by path (`/site/{tape}/…`) share one origin, the gateway's, with each other and
 * with `/object/…`: without isolation one tenant's script could read another's storage and
 * cookies and script its pages in frames. Two ways to keep them apart (docs/site.md,
 * "Isolation of path-served sites"):
 *
 * - `sandbox` (default): every path-route answer carries a second Content-Security-Policy,
 *   `sandbox allow-…` without `allow-same-origin`, so each document runs in an opaque origin of
 *   its own: no localStorage, IndexedDB, cookies or service workers, no access to any other
 *   document, framed or framing;
 * - `redirect`: path routes answer `308` to the site's own origin under `subdomain_suffix`,
 *   `<scheme>://<label>.<suffix>/<rest>`, where the site runs unsandboxed like any
 *   hostname-served site.
 *
 * Sites served by hostname are their own origin and are never sandboxed.
 */

/** The policy sent, beside the site's own, on every answer of a path route. */
export function pathSandboxPolicy(flags: readonly string[]): string {
  return ['sandbox', ...[...new Set(flags)].map((flag) => `allow-${flag}`)].join(' ');
}

export interface PathIsolationSettings {
  path_isolation: PathIsolationMode;
  subdomain_suffix: string;
  public_url?: string;
}

/**
 * Where `redirect` sends a tape's path route: the origin of its subdomain, `null` in sandbox
 * mode. With a host prefix (`v3`, `pr-12`: a pinned or alias path route) the origin of
 * `<prefix>--<label>`, or null when that is longer than one DNS label (then the path route is
 * served sandboxed). Redirect needs a suffix (checked when the configuration is loaded:
 * src/config/site-checks.ts; without one, path routes stay sandboxed). The scheme is the
 * one of `public_url` when set; else `http` for a `localhost` suffix (browsers resolve
 * `*.localhost` to loopback, where the gateway speaks plain HTTP) and `https` for any other,
 * as `tape deploy` prints site URLs.
 */
export function siteOriginResolver(
  settings: PathIsolationSettings,
): ((tape: string, hostPrefix?: string) => string | null) | null {
  const suffix = settings.subdomain_suffix.trim().toLowerCase().replace(/\.$/, '');
  if (settings.path_isolation !== 'redirect' || suffix === '') return null;
  const scheme = schemeFor(suffix, settings.public_url);
  return (tape, hostPrefix) => {
    const label = labelFromAddress(tape);
    if (hostPrefix === undefined) return `${scheme}://${label}.${suffix}`;
    // A pinned or alias origin, `<prefix>--<label>`: only while it fits one DNS label.
    const host = `${hostPrefix}--${label}`;
    return host.length <= MAX_DNS_LABEL ? `${scheme}://${host}.${suffix}` : null;
  };
}

/** RFC 1035: a DNS label is at most 63 octets (so `<alias>--<label>` fits aliases of up to 9). */
export const MAX_DNS_LABEL = 63;

function schemeFor(suffix: string, publicUrl: string | undefined): 'http' | 'https' {
  if (publicUrl) {
    const protocol = safeProtocol(publicUrl);
    if (protocol === 'http:' || protocol === 'https:')
      return protocol === 'http:' ? 'http' : 'https';
  }
  const host = suffix.replace(/:\d+$/, '');
  return host === 'localhost' || host.endsWith('.localhost') ? 'http' : 'https';
}

function safeProtocol(url: string): string | null {
  try {
    return new URL(url).protocol;
  } catch {
    return null;
  }
}
