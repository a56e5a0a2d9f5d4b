import { show } from './path-pattern';
import { MAX_HEADER_VALUE_BYTES } from './rules-limits';

/**
 * The fence around a site's `_headers` (docs/site.md, "The fence"): an allow-list of headers a
 * site may send, each with the values it may take, and the Content-Security-Policy additions it
 * may make. A site may add script and style hashes and origins, and font, image, media,
 * connect and frame origins, to the gateway's built-in policy (merged into it, never replacing
 * it); set COOP/COEP/CORP, Permissions-Policy, X-Frame-Options, Referrer-Policy, caching
 * headers, Link and X-Robots-Tag. It can never set a cookie, change `nosniff`, touch the
 * sandbox, CORS (that is `_site.json`) or redirect through a header. The same checks run at
 * deploy, in the certifier and in every reader of a version.
 */

/** Directives a site may add sources to, and which kinds of source each takes. */
export const CSP_ADDABLE = {
  'script-src': { hashes: true, schemes: false },
  'style-src': { hashes: true, schemes: false },
  'font-src': { hashes: false, schemes: true },
  'img-src': { hashes: false, schemes: true },
  'media-src': { hashes: false, schemes: true },
  'connect-src': { hashes: false, schemes: true },
  'frame-src': { hashes: false, schemes: true },
} as const;
export type CspDirective = keyof typeof CSP_ADDABLE;
export type CspAdditions = Partial<Record<CspDirective, string[]>>;

const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
const VALUE = /^[\x20-\x7e\t]*$/;
const HASH = /^'sha(256|384|512)-[A-Za-z0-9+/_-]+={0,2}'$/;
const ORIGIN_SOURCE =
  /^(https?|wss?):\/\/(\*\.)?[A-Za-z0-9]([A-Za-z0-9-]*[A-Za-z0-9])?(\.[A-Za-z0-9]([A-Za-z0-9-]*[A-Za-z0-9])?)*(:\d{1,5})?(\/[A-Za-z0-9._~!$&()*+=:@%/-]*)?$/;

const ONE_OF: Record<string, readonly string[]> = {
  'cross-origin-opener-policy': [
    'unsafe-none',
    'same-origin',
    'same-origin-allow-popups',
    'noopener-allow-popups',
  ],
  'cross-origin-embedder-policy': ['unsafe-none', 'require-corp', 'credentialless'],
  'cross-origin-resource-policy': ['same-site', 'same-origin', 'cross-origin'],
  'x-frame-options': ['deny', 'sameorigin'],
};
const REFERRER_POLICIES = new Set([
  'no-referrer',
  'no-referrer-when-downgrade',
  'origin',
  'origin-when-cross-origin',
  'same-origin',
  'strict-origin',
  'strict-origin-when-cross-origin',
  'unsafe-url',
]);
/** Headers whose value is free text (printable, bounded). */
const FREE = new Set([
  'permissions-policy',
  'cache-control',
  'cdn-cache-control',
  'expires',
  'link',
  'x-robots-tag',
]);

export const ALLOWED_HEADERS = [
  'Content-Security-Policy',
  'Cross-Origin-Opener-Policy',
  'Cross-Origin-Embedder-Policy',
  'Cross-Origin-Resource-Policy',
  'Permissions-Policy',
  'X-Frame-Options',
  'Referrer-Policy',
  'Cache-Control',
  'CDN-Cache-Control',
  'Expires',
  'Link',
  'X-Robots-Tag',
  'X-Content-Type-Options (nosniff only)',
];

/** Why a site may not send `name: value`, or null when it may. `name` in any case. */
export function headerProblem(name: string, value: string): string | null {
  if (!TOKEN.test(name)) return `${show(name)} is not a header name`;
  const lower = name.toLowerCase();
  if (Buffer.byteLength(value) > MAX_HEADER_VALUE_BYTES) {
    return `${name}: value over ${MAX_HEADER_VALUE_BYTES} bytes`;
  }
  if (!VALUE.test(value)) return `${name}: the value must be printable ASCII`;
  if (lower === 'set-cookie' || lower === 'set-cookie2') return 'a site can never set cookies';
  if (lower === 'x-content-type-options') {
    return value.trim().toLowerCase() === 'nosniff'
      ? null
      : 'X-Content-Type-Options is always nosniff: it cannot be removed or changed';
  }
  if (lower === 'location' || lower === 'refresh') {
    return `${name}: redirects belong in _redirects (and stay on the site's origin)`;
  }
  if (lower.startsWith('access-control-')) {
    return `${name}: CORS is set by _site.json (cors_origins)`;
  }
  if (lower === 'content-security-policy') {
    const csp = cspAdditions(value);
    return typeof csp === 'string' ? csp : null;
  }
  const oneOf = ONE_OF[lower];
  if (oneOf !== undefined) {
    return oneOf.includes(value.trim().toLowerCase())
      ? null
      : `${name}: ${show(value)} is not one of ${oneOf.join(', ')}`;
  }
  if (lower === 'referrer-policy') {
    const bad = value
      .split(',')
      .map((v) => v.trim().toLowerCase())
      .find((v) => !REFERRER_POLICIES.has(v));
    return bad === undefined ? null : `${name}: ${show(bad)} is not a referrer policy`;
  }
  if (FREE.has(lower)) return null;
  return `${name} is not a header a site may set (allowed: ${ALLOWED_HEADERS.join(', ')})`;
}

/**
 * Why `! name` may not be written: a site removes only what a rule of its own set (a header
 * of the allow-list); `nosniff` and the gateway's headers stay.
 */
export function detachProblem(name: string): string | null {
  const lower = name.toLowerCase();
  if (lower === 'x-content-type-options') {
    return 'X-Content-Type-Options is always nosniff: it cannot be removed or changed';
  }
  if (lower === 'content-security-policy' || lower in ONE_OF || lower === 'referrer-policy') {
    return null;
  }
  if (FREE.has(lower)) return null;
  return `! ${name}: only a header a rule of the site sets can be removed`;
}

/**
 * The sources a `Content-Security-Policy` line of `_headers` adds to the gateway's policy, or
 * why it may not: one policy (no `,`), only the directives of CSP_ADDABLE, only hashes,
 * `'wasm-unsafe-eval'` (scripts), origins and, outside scripts and styles, `https:`/`data:`/
 * `blob:`. Never `sandbox`, `default-src` or any other directive, `*`, `'unsafe-inline'`,
 * `'unsafe-eval'`, nonces or `'strict-dynamic'`.
 */
export function cspAdditions(value: string): CspAdditions | string {
  if (value.includes(',')) {
    return 'Content-Security-Policy: one policy only (a , would start a second policy)';
  }
  const additions: CspAdditions = {};
  for (const part of value.split(';')) {
    const tokens = part.trim().split(/[ \t]+/);
    if (tokens[0] === '') continue;
    const directive = tokens[0].toLowerCase();
    if (directive === 'sandbox') {
      return "Content-Security-Policy: the sandbox is the gateway's, a site can neither set nor drop it";
    }
    if (!(directive in CSP_ADDABLE)) {
      return `Content-Security-Policy: ${directive} cannot be changed; a site may add sources to ${Object.keys(CSP_ADDABLE).join(', ')}`;
    }
    const kind = CSP_ADDABLE[directive as CspDirective];
    const sources = tokens.slice(1);
    if (sources.length === 0) return `Content-Security-Policy: ${directive} adds no source`;
    for (const source of sources) {
      if (!sourceAllowed(directive, source, kind)) {
        return `Content-Security-Policy: ${directive} ${show(source)} is not allowed (a site may add ${kind.hashes ? "'sha256-…' hashes, " : ''}origins like https://cdn.example${kind.schemes ? ', https:, data:, blob:' : ''})`;
      }
    }
    const list = (additions[directive as CspDirective] ??= []);
    for (const source of sources) if (!list.includes(source)) list.push(source);
  }
  return additions;
}

function sourceAllowed(
  directive: string,
  source: string,
  kind: { hashes: boolean; schemes: boolean },
): boolean {
  if (source === "'self'") return true;
  if (kind.hashes && HASH.test(source)) return true;
  if (directive === 'script-src' && source === "'wasm-unsafe-eval'") return true;
  if (kind.schemes && ['https:', 'data:', 'blob:', 'wss:'].includes(source)) return true;
  return ORIGIN_SOURCE.test(source);
}
