import { labelFromAddress } from '../chain/tape-label';
import { ConfigError } from '../config/config-loader';
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
 * mode. Redirect needs a suffix (start-up fails naming the key otherwise). The scheme is the
 * one of `public_url` when set; else `http` for a `localhost` suffix (browsers resolve
 * `*.localhost` to loopback, where the gateway speaks plain HTTP) and `https` for any other,
 * as `tape deploy` prints site URLs.
 */
export function siteOriginResolver(
  settings: PathIsolationSettings,
): ((tape: string) => string) | null {
  if (settings.path_isolation !== 'redirect') return null;
  const suffix = settings.subdomain_suffix.trim().toLowerCase().replace(/\.$/, '');
  if (suffix === '') {
    throw new ConfigError(
      'config error: gateway.site.path_isolation is redirect but gateway.site.subdomain_suffix is empty',
    );
  }
  const scheme = schemeFor(suffix, settings.public_url);
  return (tape) => `${scheme}://${labelFromAddress(tape)}.${suffix}`;
}

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
