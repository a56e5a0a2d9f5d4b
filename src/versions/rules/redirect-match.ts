/**
 * `_redirects` matching (docs/site.md, "Rules"): the one implementation the gateway's routing,
 * the deploy and every verifier apply. No imports at all, on purpose: the verifier core
 * (src/verify/core) imports it and `npm run build` joins it into the one ES module the gateway
 * serves to browsers (tools/bundle-verify-module.mjs).
 */

export const REDIRECT_STATUSES = [200, 301, 302, 303, 307, 308, 404, 410, 451] as const;
export type RedirectStatus = (typeof REDIRECT_STATUSES)[number];

/** A compiled `_redirects` rule. */
export interface RedirectRule {
  /** Path pattern, percent-decoded. */
  from: string;
  /** Target path (printable ASCII, as written: it goes into Location after substitution). */
  to: string;
  status: RedirectStatus;
  /** `!`: applies even when a file exists at the path (else files shadow the rule). */
  force: boolean;
}

export type PathParams = Record<string, string>;

/** The values of the pattern's placeholders when `path` (decoded, from `/`) matches, else null. */
export function matchPath(pattern: string, path: string): PathParams | null {
  const splat = pattern.endsWith('*');
  const want = (splat ? pattern.slice(0, -1) : trimSlash(pattern)).split('/');
  const got = trimSlash(path).split('/');
  const params: PathParams = {};
  if (!splat) {
    if (want.length !== got.length) return null;
    return segmentsMatch(want, got, want.length, params) ? params : null;
  }
  // `/a/*`: the part before the star is a prefix of whole segments, then anything.
  const prefix = want[want.length - 1];
  const whole = want.length - 1;
  if (got.length < whole || !segmentsMatch(want, got, whole, params)) return null;
  if (got.length === whole) {
    // `/a/*` also matches `/a` itself (its splat is empty); `/a*` matches `/a`.
    if (prefix !== '') return null;
    params.splat = '';
    return params;
  }
  const next = got[whole];
  if (!next.startsWith(prefix)) return null;
  params.splat = [next.slice(prefix.length), ...got.slice(whole + 1)].join('/');
  if (path.endsWith('/') && path !== '/' && got.length > whole) params.splat += '/';
  return params;
}

function segmentsMatch(want: string[], got: string[], count: number, params: PathParams): boolean {
  for (let i = 0; i < count; i++) {
    if (want[i].startsWith(':')) {
      if (got[i] === '') return false;
      params[want[i].slice(1)] = got[i];
    } else if (want[i] !== got[i]) return false;
  }
  return true;
}

function trimSlash(path: string): string {
  return path.length > 1 && path.endsWith('/') ? path.slice(0, -1) : path;
}

/** The placeholders of a valid pattern, `splat` included when it ends with `*`. */
export function placeholdersOf(pattern: string): string[] {
  const names = pattern
    .split('/')
    .filter((s) => s.startsWith(':'))
    .map((s) => s.slice(1));
  if (pattern.endsWith('*')) names.push('splat');
  return names;
}

/** `to` with the rule's placeholders filled from `params` (percent-encoded, `/` kept in a splat). */
export function substitute(rule: RedirectRule, params: PathParams): string {
  const names = placeholdersOf(rule.from).sort((a, b) => b.length - a.length);
  if (names.length === 0) return rule.to;
  const pattern = new RegExp(`:(${names.join('|')})`, 'g');
  return rule.to.replace(pattern, (_, name: string) =>
    name === 'splat'
      ? params.splat.split('/').map(encodeURIComponent).join('/')
      : encodeURIComponent(params[name]),
  );
}

/** The first rule whose pattern matches `path` (decoded, from `/`), its index and its target. */
export function firstRedirectRule<R extends RedirectRule>(
  rules: readonly R[],
  path: string,
): { rule: R; index: number; target: string } | null {
  for (let index = 0; index < rules.length; index++) {
    const params = matchPath(rules[index].from, path);
    if (params !== null)
      return { rule: rules[index], index, target: substitute(rules[index], params) };
  }
  return null;
}
