import { detachProblem, headerProblem } from './header-fence';
import { patternProblem, show } from './path-pattern';
import { MAX_HEADER_RULES, MAX_HEADERS_PER_RULE } from './rules-limits';
import { RuleProblem, splitLines } from './rules-text';

/**
 * `_headers` (Netlify, Cloudflare Pages): a path pattern on a line of its own, then its headers
 * on indented `Name: value` lines; `! Name` (Cloudflare) removes a header an earlier matching
 * rule set. Every rule whose pattern matches a request applies, in file order. Each header goes
 * through the fence (header-fence.ts).
 */
export interface HeaderRule {
  /** Path pattern, percent-decoded (path-pattern.ts). */
  path: string;
  /** Headers set, names lowercase, in file order (a name may repeat: values are joined). */
  set: Array<[string, string]>;
  /** Names removed (lowercase). */
  detach: string[];
}

export function parseHeaders(text: string): { rules: HeaderRule[]; problems: RuleProblem[] } {
  const rules: HeaderRule[] = [];
  const problems: RuleProblem[] = [];
  let current: HeaderRule | null = null;
  let skipping = false;
  for (const { line, text: content, indent } of splitLines(text)) {
    if (!indent && (content.startsWith('/') || /^https?:/i.test(content))) {
      current = null;
      skipping = false;
      let path: string;
      try {
        path = decodeURIComponent(content);
      } catch {
        problems.push({ line, message: `${show(content)} is not a valid percent-encoded path` });
        skipping = true;
        continue;
      }
      const problem = /^https?:/i.test(path)
        ? `${show(path)}: host-specific rules are not supported (write a path)`
        : patternProblem(path);
      if (problem !== null) {
        problems.push({ line, message: problem });
        skipping = true;
      } else if (rules.length === MAX_HEADER_RULES) {
        problems.push({ line, message: `more than ${MAX_HEADER_RULES} rules` });
        break;
      } else {
        current = { path, set: [], detach: [] };
        rules.push(current);
      }
      continue;
    }
    if (skipping) continue;
    if (current === null) {
      problems.push({
        line,
        message: 'a header before any path pattern (indent headers below a path)',
      });
      continue;
    }
    if (current.set.length + current.detach.length === MAX_HEADERS_PER_RULE) {
      problems.push({ line, message: `more than ${MAX_HEADERS_PER_RULE} headers for one path` });
      continue;
    }
    const item = headerLine(content);
    if (typeof item === 'string') problems.push({ line, message: item });
    else if (item.detach) current.detach.push(item.name);
    else current.set.push([item.name, item.value]);
  }
  return { rules, problems };
}

function headerLine(content: string): { name: string; value: string; detach: boolean } | string {
  if (content.startsWith('!')) {
    const name = content.slice(1).trim();
    const problem = detachProblem(name);
    return problem ?? { name: name.toLowerCase(), value: '', detach: true };
  }
  const colon = content.indexOf(':');
  if (colon <= 0) return 'a header line is `Name: value`';
  const name = content.slice(0, colon).trim();
  const value = content.slice(colon + 1).trim();
  const problem = headerProblem(name, value);
  if (problem !== null) return problem;
  return { name: name.toLowerCase(), value, detach: false };
}

/** A rule as it may be served, or why not: the certifier's and readers' check. */
export function headerRuleProblem(rule: HeaderRule): string | null {
  const problem = patternProblem(rule.path);
  if (problem !== null) return problem;
  if (rule.set.length + rule.detach.length > MAX_HEADERS_PER_RULE) return 'too many headers';
  for (const [name, value] of rule.set) {
    if (name !== name.toLowerCase()) return `${show(name)} is not lowercase`;
    const p = headerProblem(name, value);
    if (p !== null) return p;
  }
  for (const name of rule.detach) {
    if (name !== name.toLowerCase()) return `${show(name)} is not lowercase`;
    const p = detachProblem(name);
    if (p !== null) return p;
  }
  return null;
}
