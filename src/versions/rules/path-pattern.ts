/**
 * Path patterns of `_redirects` (`from`) and `_headers`: literal segments, `:name` placeholders
 * (one whole segment each) and one trailing splat `*` (the rest of the path, `/` included),
 * as Netlify and Cloudflare Pages write them. Patterns are kept percent-decoded and matched
 * against the decoded request path; one trailing slash is ignored on both sides, so `/about`
 * also matches `/about/`.
 */

// The matching itself is redirect-match.ts (import-free: the verifier core applies it too).
export { matchPath, placeholdersOf } from './redirect-match';
export type { PathParams } from './redirect-match';

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

export function show(text: string): string {
  return JSON.stringify(text.length > 80 ? `${text.slice(0, 80)}…` : text);
}
