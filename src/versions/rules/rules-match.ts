import { CspAdditions, CspDirective, cspAdditions } from './header-fence';
import { firstRedirectRule } from './redirect-match';
import { matchPath } from './path-pattern';
import { RedirectRule } from './redirects-file';
import { SiteRules } from './site-rules';

/** The rule that decides a path, first match wins, and the target it names for that path. */
export interface RedirectMatch {
  rule: RedirectRule;
  /** `to` with the path's placeholders filled in (percent-encoded). */
  target: string;
}

/** The first redirect rule whose pattern matches `path` (decoded, from `/`), if any. */
export function firstRedirect(rules: SiteRules, path: string): RedirectMatch | null {
  const match = firstRedirectRule(rules.redirects, path);
  return match && { rule: match.rule, target: match.target };
}

/** What the `_headers` rules matching one path add up to. */
export interface PathHeaders {
  /** Indices of the matching rules, joined: equal keys mean equal headers. */
  key: string;
  /** Headers set (lowercase names), values of a repeated name joined with `, `. */
  set: Record<string, string>;
  /** Sources added to the gateway's Content-Security-Policy. */
  csp: CspAdditions;
}

/**
 * The headers of every rule matching `path`, in file order: a later rule's value for a name is
 * joined to an earlier one's (as Cloudflare Pages does), `! Name` removes what earlier rules
 * set. `Content-Security-Policy` lines become additions to the gateway's policy and
 * `X-Content-Type-Options` (always `nosniff`) is the gateway's own.
 */
export function headersFor(rules: SiteRules, path: string): PathHeaders {
  const matched: number[] = [];
  const set: Record<string, string> = {};
  const csp: CspAdditions = {};
  rules.headers.forEach((rule, index) => {
    if (matchPath(rule.path, path) === null) return;
    matched.push(index);
    for (const name of rule.detach) {
      if (name === 'content-security-policy')
        for (const k of Object.keys(csp)) delete csp[k as CspDirective];
      else delete set[name];
    }
    for (const [name, value] of rule.set) {
      if (name === 'x-content-type-options') continue;
      if (name === 'content-security-policy') {
        const added = cspAdditions(value);
        if (typeof added === 'string') continue; // checked when the rules were decoded
        for (const [directive, sources] of Object.entries(added)) {
          const list = (csp[directive as CspDirective] ??= []);
          for (const s of sources) if (!list.includes(s)) list.push(s);
        }
      } else {
        set[name] = set[name] === undefined ? value : `${set[name]}, ${value}`;
      }
    }
  });
  return { key: matched.join(','), set, csp };
}
