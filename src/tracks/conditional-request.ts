/**
 * Conditional request headers against a track's ETag (RFC 9110 §13). Track ETags are strong:
 * the quoted lowercase-hex commitment. Objects have no Last-Modified, so a date never matches.
 */

/**
 * If-Range (§13.1.5): true when the Range header may be honoured. Absent: yes. An entity tag:
 * only on a strong match (a weak tag never matches). A date, or anything else: no, send the
 * whole object.
 */
export function ifRangeAllowsRange(ifRange: string | undefined, etag: string): boolean {
  if (ifRange === undefined) return true;
  const value = ifRange.trim();
  return !isWeak(etag) && value === etag;
}

/**
 * If-None-Match (§13.1.2): true when the request's condition matches, so a GET or HEAD answers
 * 304. `*` matches any existing object; otherwise a weak comparison against each listed tag.
 * A malformed list matches nothing.
 */
export function ifNoneMatchMatches(ifNoneMatch: string | undefined, etag: string): boolean {
  if (ifNoneMatch === undefined) return false;
  if (ifNoneMatch === etag) return true; // what a browser revalidating its copy sends
  const value = ifNoneMatch.trim();
  if (value === '*') return true;
  const tags = parseEntityTags(value);
  if (!tags) return false;
  const opaque = stripWeak(etag);
  return tags.some((tag) => stripWeak(tag) === opaque);
}

// An entity-tag is `"..."` or `W/"..."`; etagc excludes DQUOTE, so a comma may sit inside one.
const ENTITY_TAG = /[ \t]*((?:W\/)?"[\x21\x23-\x7e\x80-\xff]*")[ \t]*(?:,|$)/y;
const EMPTY_ELEMENT = /[ \t]*,/y;
const MAX_TAGS = 64;

function parseEntityTags(value: string): string[] | undefined {
  const tags: string[] = [];
  let position = 0;
  while (position < value.length) {
    EMPTY_ELEMENT.lastIndex = position;
    if (EMPTY_ELEMENT.test(value)) {
      position = EMPTY_ELEMENT.lastIndex;
      continue;
    }
    ENTITY_TAG.lastIndex = position;
    const match = ENTITY_TAG.exec(value);
    if (!match || tags.length >= MAX_TAGS) return undefined;
    tags.push(match[1]);
    position = ENTITY_TAG.lastIndex;
  }
  return tags;
}

function isWeak(tag: string): boolean {
  return tag.startsWith('W/');
}

function stripWeak(tag: string): string {
  return isWeak(tag) ? tag.slice(2) : tag;
}
