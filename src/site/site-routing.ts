import { isRulesFile } from '../versions/rules/site-rules';
import { SETTINGS_FILE } from './site-settings';
import { INDEX_FILE, looksLikeRoute, NOT_FOUND_FILE, SiteFilePath } from './site-path';
import { SiteObject } from './site-source';

/**
 * Which answer a site path gets, from the objects its names resolve to (docs/site.md, "Path
 * mapping"):
 *
 * 1. a refused path (site-path.ts) -> 400 (decided before any name is looked up);
 * 2. `_site.json`, `_redirects`, `_headers` -> 404 (read by the gateway, never served);
 * 3. the object the path names -> 200;
 * 4. a path without a trailing slash whose `<path>/index.html` exists -> 308 to `<path>/`;
 * 5. a route-looking path (no extension) whose `<path>.html` exists -> that file, 200
 *    (so `/about` serves `about.html`, as the spec's "gotchas" describe);
 * 6. single-page fallback on and a route-looking path -> `index.html`, 200;
 * 7. the site's `404.html` -> 404 with it; else the built-in 404 page.
 *
 * `namesOfPath` lists every name these rules may look at for a path, so that all of them are
 * read in one request; `routeSitePath` looks at no other.
 */
export type SiteTarget =
  | {
      kind: 'object';
      object: SiteObject;
      /** 410 and 451 only from a `_redirects` rule (site-rules-routing.ts). */
      status: 200 | 404 | 410 | 451;
      /** The path names this object itself (rules 3 and 5), not a fallback page. */
      named: boolean;
    }
  | { kind: 'add-slash' }
  /** A `_redirects` rule: `location` is a path of the site (its mount is added), maybe a query. */
  | { kind: 'redirect'; status: 301 | 302 | 303 | 307 | 308; location: string }
  /** A `_redirects` 410 or 451 rule whose target file does not exist: a built-in page. */
  | { kind: 'status-page'; status: 410 | 451 }
  | { kind: 'not-found' }
  | { kind: 'bad-path'; reason: string };

/** An object of the site by name, or undefined when the site has none by that name. */
export type SiteLookup = (name: string) => SiteObject | undefined;

/** The names `routeSitePath` may consult for `path`, most specific first, without repeats. */
export function namesOfPath(path: SiteFilePath, spaFallback: boolean): string[] {
  const names: string[] = [];
  if (!isGatewayFile(path.name)) {
    names.push(path.name);
    if (!path.directory) {
      names.push(`${path.name}/${INDEX_FILE}`);
      if (looksLikeRoute(path)) names.push(`${path.name}.html`);
    }
    if (spaFallback && looksLikeRoute(path) && path.name !== INDEX_FILE) names.push(INDEX_FILE);
  }
  if (path.name !== NOT_FOUND_FILE) names.push(NOT_FOUND_FILE);
  return names;
}

/** Files the gateway reads and never serves: `_site.json`, `_redirects`, `_headers`. */
export function isGatewayFile(name: string): boolean {
  return name === SETTINGS_FILE || isRulesFile(name);
}

export function routeSitePath(
  lookup: SiteLookup,
  spaFallback: boolean,
  path: SiteFilePath,
): SiteTarget {
  if (!isGatewayFile(path.name)) {
    const exact = lookup(path.name);
    if (exact) return { kind: 'object', object: exact, status: 200, named: true };
    if (!path.directory) {
      if (lookup(`${path.name}/${INDEX_FILE}`)) return { kind: 'add-slash' };
      if (looksLikeRoute(path)) {
        const html = lookup(`${path.name}.html`);
        if (html) return { kind: 'object', object: html, status: 200, named: true };
      }
    }
    if (spaFallback && looksLikeRoute(path)) {
      const index = lookup(INDEX_FILE);
      if (index) return { kind: 'object', object: index, status: 200, named: false };
    }
  }
  const notFound = lookup(NOT_FOUND_FILE);
  return notFound
    ? { kind: 'object', object: notFound, status: 404, named: false }
    : { kind: 'not-found' };
}
