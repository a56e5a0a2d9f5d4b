import type { IncomingHttpHeaders } from 'node:http';

/** A request header as one string (Node gives arrays for a few repeated ones), or undefined. */
export function singleHeader(headers: IncomingHttpHeaders, name: string): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value.join(',') : value;
}

/** ETags arrive quoted, sometimes XML-escaped quotes, sometimes bare. */
export function unquoteEtag(etag: string): string {
  return etag.replace(/^"(.*)"$/, '$1');
}
