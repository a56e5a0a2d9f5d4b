import { isHiddenName } from '../chain/hidden-names';

/**
 * Site paths -> object names. The one place where the path of a site URL becomes the name of an
 * object on a tape, so every hostile form is refused here before any lookup happens:
 *
 * - the path is percent-decoded exactly once (`%252e` stays the literal text `%2e`);
 * - malformed escapes and invalid UTF-8 (overlong forms, lone surrogates) are refused;
 * - `.` and `..` segments (also as `%2e%2e`), empty segments (`//`), backslashes, NUL and other
 *   control characters (C0, DEL, C1) are refused;
 * - names over 1024 bytes of UTF-8 (the chain's limit for a name) are refused;
 * - a path with a hidden segment (one that starts with `.`: `.env`, `.well-known/…`,
 *   `a/.git/config`, also as `%2e`) is never published (spec: "Hidden files, symlinks,
 *   `.well-known/`: never uploaded or published"): it answers the built-in 404 page without any
 *   lookup, so no name of the tape (its `404.html`, `index.html` fallback included) answers it;
 *   only the exact `.well-known/` names of the operator's `gateway.site.well_known_allow` are
 *   looked up.
 *   The tape program refuses such names now, but a tape written by an older build may hold
 *   some: this check is the guarantee.
 *
 * A refused path never reaches the chain or the track store: it cannot name another tape's
 * objects (names are looked up inside one tape's list) nor a gateway file (nothing here touches
 * the filesystem).
 */

/** The chain's limit for an object name (docs/program.md). */
export const MAX_PATH_BYTES = 1024;

/** Raw (encoded) text longer than this cannot decode to 1024 bytes: refuse before decoding. */
const MAX_RAW_PATH_CHARS = MAX_PATH_BYTES * 3 + 1;

/** Printable ASCII that needs no decoding and no checks beyond segments (the common case). */
const PLAIN_PATH = /^[A-Za-z0-9\-._~/!$&'()*+,;=:@]*$/;
/** What may appear in a raw request path at all: printable ASCII, percent-encoded otherwise. */
const RAW_PATH = /^[\x21-\x7e]*$/;
/** C0 controls, DEL and C1 controls. */
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;

export const INDEX_FILE = 'index.html';

const NONE: ReadonlySet<string> = new Set();
export const NOT_FOUND_FILE = '404.html';

export interface SiteFilePath {
  ok: true;
  /** The object name the path asks for (`docs/index.html` for `/docs/`). */
  name: string;
  /** The path ended with `/`: the name is that directory's index.html. */
  directory: boolean;
  /** The last segment of the decoded path (empty for a directory path). */
  lastSegment: string;
}

export interface BadSitePath {
  ok: false;
  reason: string;
  /** The path is well formed but names a hidden file: answered 404, not 400. */
  hidden?: true;
}

export type SitePath = SiteFilePath | BadSitePath;

/**
 * `rawPath`: the encoded path below the site root, starting with `/`, without the query
 * (`/`, `/app.css`, `/docs/`, `/caf%C3%A9.html`).
 */
export function parseSitePath(
  rawPath: string,
  wellKnownAllow: ReadonlySet<string> = NONE,
): SitePath {
  if (rawPath.length === 0 || rawPath.charCodeAt(0) !== 47 /* / */) {
    return bad('path must start with /');
  }
  if (rawPath.length > MAX_RAW_PATH_CHARS) return bad('path is over 1024 bytes');
  let decoded: string;
  if (PLAIN_PATH.test(rawPath)) {
    decoded = rawPath;
  } else {
    if (!RAW_PATH.test(rawPath)) return bad('path has characters that are not percent-encoded');
    try {
      decoded = decodeURIComponent(rawPath);
    } catch {
      return bad('path has a malformed escape or is not UTF-8');
    }
    if (CONTROL.test(decoded)) return bad('path has control characters');
  }
  if (decoded.includes('\\')) return bad('path has a backslash');

  const relative = decoded.slice(1);
  if (Buffer.byteLength(relative, 'utf8') > MAX_PATH_BYTES) return bad('path is over 1024 bytes');

  const directory = relative === '' || relative.endsWith('/');
  const segments = relative.split('/');
  const last = segments.length - 1;
  for (let i = 0; i < segments.length; i++) {
    const segment = segments[i];
    if (segment === '') {
      // Only the segment after a trailing slash (or the empty root path) may be empty.
      if (i === last) continue;
      return bad('path has an empty segment (//)');
    }
    if (segment === '.' || segment === '..') return bad('path has a . or .. segment');
  }
  // The one exception: a `.well-known/` name the operator allows (gateway.site.well_known_allow).
  if (isHiddenName(relative) && !wellKnownAllow.has(relative))
    return { ok: false, reason: 'path names a hidden file', hidden: true };
  return {
    ok: true,
    name: directory ? relative + INDEX_FILE : relative,
    directory,
    lastSegment: segments[last],
  };
}

/** "Looks like a route" for the single-page fallback: the last segment has no file extension. */
export function looksLikeRoute(path: SiteFilePath): boolean {
  if (path.directory) return true;
  const dot = path.lastSegment.lastIndexOf('.');
  // A leading dot (`.env`) is a hidden file's name, not an extension; `v1.2` has one.
  return dot <= 0 || dot === path.lastSegment.length - 1;
}

/** The file name for Content-Disposition: the last segment of the object name. */
export function fileNameOf(objectName: string): string {
  const slash = objectName.lastIndexOf('/');
  return slash < 0 ? objectName : objectName.slice(slash + 1);
}

function bad(reason: string): BadSitePath {
  return { ok: false, reason };
}
