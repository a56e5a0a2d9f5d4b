import { HeaderRule, headerRuleProblem, parseHeaders } from './headers-file';
import { RedirectRule, RedirectStatus, parseRedirects, validateRedirect } from './redirects-file';
import {
  HEADERS_FILE,
  MAX_COMPILED_RULES_BYTES,
  MAX_HEADER_RULES,
  MAX_REDIRECT_RULES,
  MAX_RULES_FILE_BYTES,
  REDIRECTS_FILE,
} from './rules-limits';

/**
 * A site's rules, compiled from its `_redirects` and `_headers` (docs/site.md, "Rules") and
 * carried in its version's root (docs/versions.md, "Encoding"). `compileSiteRules` is what the
 * deploy, the planner and the certifier run on the files; `decodeSiteRules` is what every reader
 * runs on a root's bytes: the same checks again, then the canonical spelling compared, so a
 * version whose rules were not certified by this code is never served.
 */
export interface SiteRules {
  redirects: RedirectRule[];
  headers: HeaderRule[];
}

export const NO_RULES: SiteRules = { redirects: [], headers: [] };

/** The rules files of a version are invalid: one line per problem, `_redirects:12: …`. */
export class RulesError extends Error {
  constructor(readonly problems: string[]) {
    super(`invalid site rules:\n${problems.join('\n')}`);
    this.name = 'RulesError';
  }
}

export interface RulesFiles {
  redirects?: Buffer;
  headers?: Buffer;
}

/** The compiled rules of the two files, or a RulesError naming every problem. */
export function compileSiteRules(files: RulesFiles): SiteRules {
  const problems: string[] = [];
  const redirects = files.redirects
    ? parseFile(REDIRECTS_FILE, files.redirects, parseRedirects, problems)
    : [];
  const headers = files.headers
    ? parseFile(HEADERS_FILE, files.headers, parseHeaders, problems)
    : [];
  if (problems.length > 0) throw new RulesError(problems);
  return { redirects, headers };
}

function parseFile<T>(
  file: string,
  bytes: Buffer,
  parse: (text: string) => { rules: T[]; problems: Array<{ line: number; message: string }> },
  problems: string[],
): T[] {
  if (bytes.length > MAX_RULES_FILE_BYTES) {
    problems.push(`${file}: ${bytes.length} bytes, over the ${MAX_RULES_FILE_BYTES}-byte limit`);
    return [];
  }
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    problems.push(`${file}: not UTF-8 text`);
    return [];
  }
  if (text.startsWith('\ufeff')) text = text.slice(1);
  const parsed = parse(text);
  for (const p of parsed.problems) problems.push(`${file}:${p.line}: ${p.message}`);
  return parsed.rules;
}

/**
 * The canonical bytes of compiled rules: empty for none, else compact JSON
 * `{"redirects":[[from,to,status,force],…],"headers":[[path,[[name,value],…],[detached…]],…]}`.
 */
export function encodeSiteRules(rules: SiteRules): Buffer {
  if (rules.redirects.length === 0 && rules.headers.length === 0) return Buffer.alloc(0);
  const json = JSON.stringify({
    redirects: rules.redirects.map((r) => [r.from, r.to, r.status, r.force]),
    headers: rules.headers.map((h) => [h.path, h.set, h.detach]),
  });
  return Buffer.from(json, 'utf8');
}

/** Rules from a root's bytes, checked as the deploy checks them; a RulesError otherwise. */
export function decodeSiteRules(bytes: Buffer): SiteRules {
  if (bytes.length === 0) return NO_RULES;
  if (bytes.length > MAX_COMPILED_RULES_BYTES) throw new RulesError(['compiled rules too large']);
  let parsed: unknown;
  try {
    parsed = JSON.parse(bytes.toString('utf8'));
  } catch {
    throw new RulesError(['compiled rules are not JSON']);
  }
  const rules = shapeOf(parsed);
  const problems: string[] = [];
  rules.redirects.forEach((rule, i) => {
    const checked = validateRedirect(rule);
    if (typeof checked === 'string') problems.push(`${REDIRECTS_FILE} rule ${i + 1}: ${checked}`);
  });
  rules.headers.forEach((rule, i) => {
    const problem = headerRuleProblem(rule);
    if (problem !== null) problems.push(`${HEADERS_FILE} rule ${i + 1}: ${problem}`);
  });
  if (problems.length > 0) throw new RulesError(problems);
  if (!encodeSiteRules(rules).equals(bytes)) {
    throw new RulesError(['compiled rules are not in their canonical spelling']);
  }
  return rules;
}

function shapeOf(value: unknown): SiteRules {
  const bad = () => new RulesError(['compiled rules have the wrong shape']);
  if (!isObject(value) || !Array.isArray(value.redirects) || !Array.isArray(value.headers)) {
    throw bad();
  }
  if (value.redirects.length > MAX_REDIRECT_RULES || value.headers.length > MAX_HEADER_RULES) {
    throw new RulesError(['compiled rules hold too many rules']);
  }
  const redirects = value.redirects.map((r: unknown): RedirectRule => {
    if (!Array.isArray(r) || r.length !== 4) throw bad();
    const [from, to, status, force] = r as unknown[];
    if (typeof from !== 'string' || typeof to !== 'string') throw bad();
    if (typeof status !== 'number' || typeof force !== 'boolean') throw bad();
    return { from, to, status: status as RedirectStatus, force };
  });
  const headers = value.headers.map((h: unknown): HeaderRule => {
    if (!Array.isArray(h) || h.length !== 3) throw bad();
    const [path, set, detach] = h as unknown[];
    if (typeof path !== 'string' || !Array.isArray(set) || !Array.isArray(detach)) throw bad();
    for (const pair of set) {
      if (!Array.isArray(pair) || pair.length !== 2) throw bad();
      if (typeof pair[0] !== 'string' || typeof pair[1] !== 'string') throw bad();
    }
    if (!detach.every((d) => typeof d === 'string')) throw bad();
    return { path, set: set as Array<[string, string]>, detach: detach };
  });
  return { redirects, headers };
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Whether a name is one of the rules files (read by the gateway, never served as a file). */
export function isRulesFile(name: string): boolean {
  return name === REDIRECTS_FILE || name === HEADERS_FILE;
}
