import { firstRedirectRule, RedirectRule } from '../../versions/rules/redirect-match';
import { SiteProofTarget } from './proof-format';
import { Refusal } from './refusal';

/**
 * The names a site path may be answered with (docs/site.md, "Path mapping"); null if refused.
 * `requestPath` is the decoded path rules match; `directoryIndex` the `<path>/index.html` whose
 * existence makes the gateway add a slash.
 */
export function namesForPath(path: string): {
  exact: string[];
  fallback200: string[];
  requestPath: string;
  directoryIndex: string[];
} | null {
  if (!path.startsWith('/')) return null;
  let decoded: string;
  try {
    decoded = decodeURIComponent(path);
  } catch {
    return null;
  }
  const relative = decoded.slice(1);
  const directory = relative === '' || relative.endsWith('/');
  const name = directory ? `${relative}index.html` : relative;
  const last = relative.split('/').pop() ?? '';
  const dot = last.lastIndexOf('.');
  const route = directory || dot <= 0 || dot === last.length - 1;
  const exact = [name];
  if (!directory && route) exact.push(`${name}.html`);
  return {
    exact,
    fallback200: route ? ['index.html'] : [],
    requestPath: decoded,
    directoryIndex: directory ? [] : [`${name}/index.html`],
  };
}

/**
 * The site's routing of the path, rules first (docs/verify.md, "Site rules"): which `_redirects`
 * rule decides the path (the first whose pattern matches, unless a file at the path shadows a
 * rule without `!`) must be the proof's `rule`; a file answer must then be the rule's target
 * file (or the 404 page when the target is absent), a plain answer one the path names.
 * Returns the redirect a redirect target proves.
 */
export function checkSiteRules(
  target: SiteProofTarget,
  rules: RedirectRule[],
  has: (name: string) => boolean,
):
  { kind: 'redirect'; status: number; location: string } | { kind: 'page'; status: number } | null {
  const names = namesForPath(target.path);
  if (!names) throw new Refusal('name_not_for_path', `${target.path} is not a site path`);
  const match = firstRedirectRule(rules, names.requestPath);
  // A file the path names itself (or its directory's index) shadows a rule without `!`.
  const shadowed = (): boolean =>
    [...names.exact, ...names.directoryIndex].some((n) => !isGatewayName(n) && has(n));
  const applies = match !== null && (match.rule.force || !shadowed());
  if (!('location' in target) && !('page' in target) && target.rule === undefined) {
    if (applies) {
      throw new Refusal(
        'rule_mismatch',
        `_redirects rule ${match.index + 1} (${match.rule.from} ${match.rule.to} ${match.rule.status}) answers ${target.path}, the proof says no rule does`,
      );
    }
    if (match !== null && !(target.status === 200 && names.exact.includes(target.name))) {
      throw new Refusal(
        'rule_mismatch',
        `${target.path} is answered by _redirects rule ${match.index + 1} unless a file shadows it; ${target.name} does not`,
      );
    }
    checkNameForPath(target);
    return null;
  }
  if (match === null || match.index !== target.rule) {
    throw new Refusal(
      'rule_mismatch',
      match === null
        ? `no _redirects rule matches ${target.path}`
        : `_redirects rule ${match.index + 1} matches ${target.path} first, not rule ${(target.rule ?? 0) + 1}`,
    );
  }
  if (!applies)
    throw new Refusal(
      'rule_shadowed',
      `a file at ${target.path} shadows _redirects rule ${match.index + 1}`,
    );
  const rule = match.rule;
  if ('location' in target) {
    if (target.status !== rule.status || target.location !== match.target) {
      throw new Refusal(
        'rule_mismatch',
        `_redirects rule ${match.index + 1} answers ${rule.status} to ${match.target}, the proof says ${target.status} to ${target.location}`,
      );
    }
    return { kind: 'redirect', status: rule.status, location: match.target };
  }
  if (rule.status !== 200 && rule.status !== 404 && rule.status !== 410 && rule.status !== 451)
    throw new Refusal('rule_mismatch', `_redirects rule ${match.index + 1} is a redirect`);
  const wanted = nameOfTarget(match.target);
  if ('page' in target) {
    // No file answers: the rule's file is absent, and for a 200/404 rule the 404 page too.
    const absent = wanted === null || !has(wanted);
    const ok =
      absent &&
      (rule.status === 410 || rule.status === 451
        ? target.status === rule.status
        : target.status === 404 && !has('404.html'));
    if (!ok) {
      throw new Refusal(
        'rule_mismatch',
        `_redirects rule ${match.index + 1} answers ${target.path} with a file, not a built-in ${target.status} page`,
      );
    }
    return { kind: 'page', status: target.status };
  }
  if (wanted !== null && target.name === wanted && target.status === rule.status) return null;
  // The rule's file is absent: a 200 or 404 rule answers with the site's 404 page.
  const fallback =
    (rule.status === 200 || rule.status === 404) &&
    target.name === '404.html' &&
    target.status === 404 &&
    (wanted === null || !has(wanted));
  if (!fallback) {
    throw new Refusal(
      'rule_mismatch',
      `_redirects rule ${match.index + 1} answers ${target.path} with ${wanted ?? 'no file'} (status ${rule.status}), the proof says ${target.name} (status ${target.status})`,
    );
  }
  return null;
}

/** The file a rule's target path names (`/a/` -> `a/index.html`), null for a gateway file. */
function nameOfTarget(to: string): string | null {
  const names = namesForPath(to.split(/[?#]/)[0]);
  if (!names) return null;
  const name = names.exact[0];
  return isGatewayName(name) ? null : name;
}

/** `_site.json`, `_redirects`, `_headers`: read by the gateway, never served. */
function isGatewayName(name: string): boolean {
  return name === '_site.json' || name === '_redirects' || name === '_headers';
}

function checkNameForPath(target: { path: string; name: string; status: number }): void {
  const names = namesForPath(target.path);
  if (!names) throw new Refusal('name_not_for_path', `${target.path} is not a site path`);
  const ok =
    target.status === 404
      ? target.name === '404.html'
      : target.status === 200 &&
        (names.exact.includes(target.name) || names.fallback200.includes(target.name));
  if (!ok) {
    throw new Refusal(
      'name_not_for_path',
      `${target.name} (status ${target.status}) is not what ${target.path} names`,
    );
  }
}
