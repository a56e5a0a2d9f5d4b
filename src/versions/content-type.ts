import { contentType as contentTypeFor, lookup } from 'mime-types';
import { MAX_CONTENT_TYPE_BYTES } from './version-entry';

const FALLBACK_CONTENT_TYPE = 'application/octet-stream';

/**
 * An object's content type, from its name's extension (`; charset=utf-8` on text types), as
 * `tape deploy` and S3 writes both record it. Unknown extensions are octet-stream.
 */
export function contentTypeOf(name: string): string {
  const type = lookup(name);
  const full = type ? contentTypeFor(type) : false;
  const value = full || FALLBACK_CONTENT_TYPE;
  return Buffer.byteLength(value) <= MAX_CONTENT_TYPE_BYTES ? value : FALLBACK_CONTENT_TYPE;
}
