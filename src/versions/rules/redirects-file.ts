import { REDIRECT_STATUSES, RedirectRule, RedirectStatus } from './redirect-match';
import { patternProblem, show } from './path-pattern';
import { MAX_REDIRECT_RULES } from './rules-limits';
import { RuleProblem, splitLines } from './rules-text';

/**
 * `_redirects` (Netlify, Cloudflare Pages, the IPFS web-redirects-file spec): one rule a line,
 * `from to [status]`, first match wins. `from` is a path pattern (path-pattern.ts), `to` a path
 * of the same site (placeholders and `:splat` substituted, a static query allowed), status one
 * of REDIRECT_STATUSES, `!` after it forces the rule over an existing file. Refused with one
 * problem per line: other statuses, query or country conditions, and any `to` that leaves the
 * site's origin (an absolute URL, `//host`, a backslash): the same version is served on the
 * gateway's shared origin too (`/site/{tape}/…`), where it must never redirect elsewhere.
 */

// The rule's shape, statuses and substitution are redirect-match.ts's (one implementation, the verifier core's too).
export { REDIRECT_STATUSES, substitute } from './redirect-match';
export type { RedirectRule, RedirectStatus } from './redirect-match';

const TARGET = /^\/[\x21-\x7e]*$/;

export function parseRedirects(text: string): { rules: RedirectRule[]; problems: RuleProblem[] } {
  const rules: RedirectRule[] = [];
  const problems: RuleProblem[] = [];
  for (const { line, text: content } of splitLines(text)) {
    const tokens = content.split(/[ \t]+/);
    const parsed = redirectFromTokens(tokens);
    if (typeof parsed === 'string') problems.push({ line, message: parsed });
    else if (rules.length === MAX_REDIRECT_RULES) {
      problems.push({ line, message: `more than ${MAX_REDIRECT_RULES} rules` });
      break;
    } else rules.push(parsed);
  }
  return { rules, problems };
}

function redirectFromTokens(tokens: string[]): RedirectRule | string {
  if (tokens.length < 2) return 'a rule is `from to [status]`';
  if (tokens.length > 3) {
    return `${show(tokens[3])}: conditions (query, Country, Language, Role) are not supported`;
  }
  const from = decodePattern(tokens[0]);
  if (from === null) return `${show(tokens[0])} is not a valid percent-encoded path`;
  let status: number = 301;
  let force = false;
  if (tokens.length === 3) {
    const m = /^(\d{3})(!?)$/.exec(tokens[2]);
    if (m === null) return `${show(tokens[2])} is not a status (like 301 or 200!)`;
    status = Number(m[1]);
    force = m[2] === '!';
  }
  return validateRedirect({ from, to: tokens[1], status: status as RedirectStatus, force });
}

/** The rule as it may be served, or the reason it may not: the deploy, certifier and reader check. */
export function validateRedirect(rule: RedirectRule): RedirectRule | string {
  if (!(REDIRECT_STATUSES as readonly number[]).includes(rule.status)) {
    return `status ${rule.status} is not allowed (${REDIRECT_STATUSES.join(', ')})`;
  }
  const fromProblem = patternProblem(rule.from);
  if (fromProblem !== null) return fromProblem;
  const toProblem = targetProblem(rule.to);
  if (toProblem !== null) return toProblem;
  return rule;
}

function targetProblem(to: string): string | null {
  if (/^[a-z][a-z0-9+.-]*:/i.test(to)) {
    return `${show(to)} is another origin: a rule must stay on the site (write a path like /new)`;
  }
  if (to.startsWith('//') || to.includes('\\')) {
    return `${show(to)} leaves the site's origin (//host or a backslash)`;
  }
  if (!TARGET.test(to)) return `${show(to)} must be a path starting with / (printable ASCII)`;
  const path = to.split(/[?#]/)[0];
  if (path.split('/').some((s) => s === '..' || s === '.' || /^%2e%2e$/i.test(s))) {
    return `${show(to)} holds a . or .. segment`;
  }
  return null;
}

function decodePattern(raw: string): string | null {
  try {
    return decodeURIComponent(raw);
  } catch {
    return null;
  }
}
