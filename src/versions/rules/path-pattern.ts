/**
 * Path patterns of `_redirects` (`from`) and `_headers`: literal segments, `:name` placeholders
 * (one whole segment each) and one trailing splat `*` (the rest of the path, `/` included),
 * as Netlify and Cloudflare Pages write them. Patterns are kept percent-decoded and matched
 * against the decoded request path; one trailing slash is ignored on both sides, so `/about`
 * also matches `/about/`.
 */

export type PathParams = Record<string, string>;

const PLACEHOLDER = /^:[A-Za-z_][A-Za-z0-9_]*$/;
// eslint-disable-next-line no-control-regex -- refusing control characters is the point
const FORBIDDEN = /[\u0000-\u0020\u007f-\u009f\\?#]/;

/** Why `pattern` is not a path pattern, or null when it is one. */
export function patternProblem(pattern: string): string | null {
  if (!pattern.startsWith('/')) return `${show(pattern)} must start with /`;
  if (pattern.startsWith('//')) return `${show(pattern)} must be a path, not //host`;
  if (FORBIDDEN.test(pattern)) {
    return pattern.includes('?')
      ? `${show(pattern)}: query conditions are not supported (rules match the path only)`
      : `${show(pattern)} holds a space, a control character, \\ or #`;
  }
  const star = pattern.indexOf('*');
  if (star >= 0 && star !== pattern.length - 1) {
    return `${show(pattern)}: * is allowed only at the end (a splat)`;
  }
  const seen = new Set<string>();
  for (const segment of pattern.split('/').slice(1)) {
    if (segment === '.' || segment === '..') return `${show(pattern)} holds a . or .. segment`;
    if (!segment.startsWith(':')) continue;
    if (!PLACEHOLDER.test(segment)) return `${show(pattern)}: bad placeholder ${show(segment)}`;
    if (segment === ':splat') return `${show(pattern)}: :splat is the * of a pattern`;
    if (seen.has(segment)) return `${show(pattern)}: placeholder ${segment} appears twice`;
    seen.add(segment);
  }
  return null;
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

export function show(text: string): string {
  return JSON.stringify(text.length > 80 ? `${text.slice(0, 80)}…` : text);
}
