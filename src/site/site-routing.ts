import { SETTINGS_FILE } from './site-settings';
import { INDEX_FILE, looksLikeRoute, NOT_FOUND_FILE, parseSitePath } from './site-path';
import { SiteObject } from './site-source';

/**
 * Which answer a site path gets, from the site's object list (docs/site.md, "Path mapping"):
 *
 * 1. a refused path (site-path.ts) -> 400;
 * 2. `_site.json` -> 404 (read by the gateway, never served);
 * 3. the object the path names -> 200;
 * 4. a path without a trailing slash whose `<path>/index.html` exists -> 308 to `<path>/`;
 * 5. a route-looking path (no extension) whose `<path>.html` exists -> that file, 200
 *    (so `/about` serves `about.html`, as the spec's "gotchas" describe);
 * 6. single-page fallback on and a route-looking path -> `index.html`, 200;
 * 7. the site's `404.html` -> 404 with it; else the built-in 404 page.
 */
export type SiteTarget =
  | {
      kind: 'object';
      object: SiteObject;
      status: 200 | 404;
      /** The path names this object itself (rules 3 and 5), not a fallback page. */
      named: boolean;
    }
  | { kind: 'add-slash' }
  | { kind: 'not-found' }
  | { kind: 'bad-path'; reason: string };

export function routeSitePath(
  objects: ReadonlyMap<string, SiteObject>,
  spaFallback: boolean,
  rawPath: string,
): SiteTarget {
  const path = parseSitePath(rawPath);
  if (!path.ok) return { kind: 'bad-path', reason: path.reason };
  if (path.name !== SETTINGS_FILE) {
    const exact = objects.get(path.name);
    if (exact) return { kind: 'object', object: exact, status: 200, named: true };
    if (!path.directory) {
      if (objects.has(`${path.name}/${INDEX_FILE}`)) return { kind: 'add-slash' };
      if (looksLikeRoute(path)) {
        const html = objects.get(`${path.name}.html`);
        if (html) return { kind: 'object', object: html, status: 200, named: true };
      }
    }
    if (spaFallback && looksLikeRoute(path)) {
      const index = objects.get(INDEX_FILE);
      if (index) return { kind: 'object', object: index, status: 200, named: false };
    }
  }
  const notFound = objects.get(NOT_FOUND_FILE);
  return notFound
    ? { kind: 'object', object: notFound, status: 404, named: false }
    : { kind: 'not-found' };
}
