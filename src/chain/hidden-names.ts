/**
 * Hidden object names: a name with a `/`-separated segment that starts with `.` (`.env`,
 * `.well-known/acme-challenge/x`, `a/.git/config`, and `.`/`..` themselves). The spec publishes
 * none of them ("Hidden files, symlinks, `.well-known/`: never uploaded or published"). The
 * program no longer sees names (a site is a version, docs/versions.md), so the gateway is the
 * guarantee: a version entry with such a name is never certified (`src/versions/version-entry.ts`),
 * and the site and S3 routes never serve, list or accept one, whoever wrote the version.
 */

/** Why such a name is refused: the message clients show. */
export const HIDDEN_NAME_RULE =
  'a name segment starts with "." (hidden files and .well-known/ are never published)';

/** True when some `/`-separated segment of `name` starts with `.`. */
export function isHiddenName(name: string): boolean {
  return name.charCodeAt(0) === 46 /* . */ || name.includes('/.');
}

/** The namespace of RFC 8615 well-known URIs: hidden, except names an operator allows. */
export const WELL_KNOWN_DIR = '.well-known';

/**
 * True for `.well-known/<name>` whose own segments are visible (`.well-known/security.txt`,
 * not `.well-known/.x` nor `.well-known/`): the only hidden names a version may hold, and only
 * where the certifying gateway allows that exact name (gateway.site.well_known_allow).
 */
export function isWellKnownName(name: string): boolean {
  const rest = name.slice(WELL_KNOWN_DIR.length + 1);
  return name.startsWith(`${WELL_KNOWN_DIR}/`) && rest !== '' && !isHiddenName(rest);
}
