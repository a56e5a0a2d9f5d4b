import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { CspAdditions } from '../../versions/rules/header-fence';
import {
  HEADERS_FILE,
  MAX_RULES_FILE_BYTES,
  REDIRECTS_FILE,
} from '../../versions/rules/rules-limits';
import { headersFor } from '../../versions/rules/rules-match';
import { compileSiteRules, RulesError, SiteRules } from '../../versions/rules/site-rules';
import { CliError } from '../cli-error';
import { SiteFile } from './site-scanner';

/** Pages and stylesheets larger than this are not looked into for warnings. */
const MAX_SCANNED_BYTES = 4 * 1024 * 1024;
/** Warnings printed, at most (the rest are counted). */
const MAX_WARNINGS = 20;

/**
 * What `tape deploy` checks in a site before it sends anything (docs/cli.md, "Site rules"):
 * its `_redirects` and `_headers` compile and pass the fence, else the deploy stops with one
 * line per problem; then the warnings: an inline script, an external script or stylesheet, or
 * an external font that the gateway's policy, with the site's `_headers`, would block, each
 * naming the `_headers` line that would allow it.
 */
export async function checkSiteRules(files: readonly SiteFile[]): Promise<string[]> {
  const byName = new Map(files.map((f) => [f.name, f]));
  const read = async (name: string) => {
    const file = byName.get(name);
    if (file === undefined) return undefined;
    if (file.size > MAX_RULES_FILE_BYTES) return Buffer.alloc(file.size); // refused by its size
    return readFile(file.path);
  };
  let rules: SiteRules;
  try {
    rules = compileSiteRules({
      redirects: await read(REDIRECTS_FILE),
      headers: await read(HEADERS_FILE),
    });
  } catch (err) {
    if (err instanceof RulesError) {
      throw new CliError(
        `the site's rules are refused; nothing was sent:\n${err.problems.join('\n')}`,
      );
    }
    throw err;
  }
  const warnings: string[] = [];
  for (const file of files) {
    if (file.size > MAX_SCANNED_BYTES) continue;
    if (file.name.endsWith('.html') || file.name.endsWith('.htm')) {
      const html = (await readFile(file.path)).toString('utf8');
      warnings.push(...pageWarnings(file.name, html, rules));
    } else if (file.name.endsWith('.css')) {
      const css = (await readFile(file.path)).toString('utf8');
      warnings.push(...fontWarnings(file.name, css, headersFor(rules, '/').csp, '/*'));
    }
  }
  if (warnings.length <= MAX_WARNINGS) return warnings;
  return [
    ...warnings.slice(0, MAX_WARNINGS),
    `warning: ${warnings.length - MAX_WARNINGS} more like these`,
  ];
}

/** The URL path a page is visited at: `docs/index.html` at `/docs/`. */
export function pagePath(name: string): string {
  return name === 'index.html' || name.endsWith('/index.html')
    ? `/${name.slice(0, -'index.html'.length)}`
    : `/${name}`;
}

const SCRIPT = /<script\b([^>]*)>([\s\S]*?)<\/script\s*>/gi;
const STYLE = /<style\b[^>]*>([\s\S]*?)<\/style\s*>/gi;
const LINK = /<link\b([^>]*)>/gi;
const NOT_SCRIPT_TYPES = /type\s*=\s*["']?(application\/(ld\+)?json|text\/(x-)?template)/i;

export function pageWarnings(name: string, html: string, rules: SiteRules): string[] {
  const path = pagePath(name);
  const added = headersFor(rules, path).csp;
  const pattern = rulePattern(rules, path);
  const warnings: string[] = [];
  for (const m of html.matchAll(SCRIPT)) {
    const attrs = m[1];
    const src = attribute(attrs, 'src');
    if (src !== undefined) {
      const origin = externalOrigin(src);
      if (origin !== null && !allows(added['script-src'], origin)) {
        warnings.push(blocked(name, `the script ${src}`, pattern, `script-src ${origin}`));
      }
      continue;
    }
    if (NOT_SCRIPT_TYPES.test(attrs) || m[2].trim() === '') continue;
    // The browser hashes the script's text as parsed: line breaks normalised to \n, UTF-8.
    const text = m[2].replace(/\r\n?/g, '\n');
    const hash = `'sha256-${createHash('sha256').update(text, 'utf8').digest('base64')}'`;
    if (!(added['script-src'] ?? []).includes(hash)) {
      warnings.push(
        blocked(
          name,
          `an inline script (line ${lineOf(html, m.index)})`,
          pattern,
          `script-src ${hash}`,
        ),
      );
    }
  }
  for (const m of html.matchAll(LINK)) {
    const attrs = m[1];
    const href = attribute(attrs, 'href');
    const rel = (attribute(attrs, 'rel') ?? '').toLowerCase();
    const origin = href === undefined ? null : externalOrigin(href);
    if (origin === null) continue;
    if (rel.includes('stylesheet') && !allows(added['style-src'], origin)) {
      warnings.push(blocked(name, `the stylesheet ${href}`, pattern, `style-src ${origin}`));
    }
    if (rel.includes('stylesheet') && origin === 'https://fonts.googleapis.com') {
      // Google Fonts' stylesheet loads its fonts from another origin.
      if (!allows(added['font-src'], 'https://fonts.gstatic.com')) {
        warnings.push(
          blocked(name, `the fonts of ${href}`, pattern, 'font-src https://fonts.gstatic.com'),
        );
      }
    }
    if (attribute(attrs, 'as') === 'font' && !allows(added['font-src'], origin)) {
      warnings.push(blocked(name, `the font ${href}`, pattern, `font-src ${origin}`));
    }
  }
  for (const m of html.matchAll(STYLE)) warnings.push(...fontWarnings(name, m[1], added, pattern));
  return warnings;
}

/** External fonts of `@font-face` rules that `added` does not allow. */
function fontWarnings(name: string, css: string, added: CspAdditions, pattern: string): string[] {
  const warnings: string[] = [];
  for (const face of css.matchAll(/@font-face\s*{([^}]*)}/gi)) {
    for (const url of face[1].matchAll(/url\(\s*["']?([^"')]+)["']?\s*\)/gi)) {
      const origin = externalOrigin(url[1]);
      if (origin !== null && !allows(added['font-src'], origin)) {
        warnings.push(blocked(name, `the font ${url[1]}`, pattern, `font-src ${origin}`));
      }
    }
  }
  return warnings;
}

function blocked(name: string, what: string, pattern: string, directive: string): string {
  return (
    `warning: ${name}: ${what} is blocked by the site's Content-Security-Policy; ` +
    `to allow it, add to ${HEADERS_FILE}:\n  ${pattern}\n    Content-Security-Policy: ${directive}`
  );
}

/** The pattern of the first `_headers` rule matching the page, or `/*`. */
function rulePattern(rules: SiteRules, path: string): string {
  const key = headersFor(rules, path).key;
  return key === '' ? '/*' : rules.headers[Number(key.split(',')[0])].path;
}

function allows(sources: readonly string[] | undefined, origin: string): boolean {
  if (sources === undefined) return false;
  const scheme = `${origin.slice(0, origin.indexOf(':'))}:`;
  return sources.some(
    (s) =>
      s === origin ||
      s === scheme ||
      s.startsWith(`${origin}/`) ||
      (s.includes('://*.') &&
        origin.endsWith(s.slice(s.indexOf('*') + 1)) &&
        origin.startsWith(s.slice(0, s.indexOf('*')))),
  );
}

/** `https://host[:port]` of an absolute (or protocol-relative) URL; null for the site's own. */
function externalOrigin(url: string): string | null {
  const absolute = url.startsWith('//') ? `https:${url}` : url;
  if (!/^https?:\/\//i.test(absolute)) return null;
  try {
    return new URL(absolute).origin;
  } catch {
    return null;
  }
}

function attribute(attrs: string, name: string): string | undefined {
  const m = new RegExp(`(?:^|\\s)${name}\\s*=\\s*(?:"([^"]*)"|'([^']*)'|([^\\s>]+))`, 'i').exec(
    attrs,
  );
  return m === null ? undefined : (m[1] ?? m[2] ?? m[3]);
}

function lineOf(text: string, index: number): number {
  let line = 1;
  for (let i = 0; i < index; i++) if (text.charCodeAt(i) === 10) line++;
  return line;
}
