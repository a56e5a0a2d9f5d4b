import type { IncomingHttpHeaders } from 'node:http';
import type { Readable } from 'node:stream';
import { BuiltInPage, PAGE_CONTENT_TYPE } from './site-pages';
import { ERROR_PAGE_CSP } from './site-policy';

/** What answering a site request needs of it: its method and headers (Node's request has both). */
export interface SiteRequest {
  readonly method?: string;
  readonly headers: IncomingHttpHeaders;
}

/** Headers as a flat list, name, value, name, value…: what Node's `writeHead` takes as is. */
export type HeaderList = readonly string[];

/**
 * A site answer, as the site services return it and the site edge writes it: the status, every
 * header (Content-Length included when there is a body of known length), and the body: none,
 * bytes in memory, or a stream of verified bytes (a body that fails verification after the
 * headers went out ends the connection).
 */
export interface SiteAnswer {
  readonly status: number;
  readonly headers: HeaderList;
  readonly body: Buffer | Readable | null;
}

/** A header record flattened, in its key order. */
export function headerList(headers: Readonly<Record<string, string>>): string[] {
  const out: string[] = [];
  for (const name of Object.keys(headers)) out.push(name, headers[name]);
  return out;
}

/** An answer with a body in memory: its Content-Length is added. */
export function bufferAnswer(status: number, headers: HeaderList, body: Buffer): SiteAnswer {
  return { status, headers: [...headers, 'content-length', String(body.length)], body };
}

/**
 * A built-in page. 404 and 410 are cached like the site's content (`cacheControl`), the others
 * (refusals and failures) never.
 */
export function pageAnswer(
  page: BuiltInPage,
  cacheControl?: string,
  extra?: Readonly<Record<string, string>>,
): SiteAnswer {
  const cacheable = cacheControl !== undefined && (page.status === 404 || page.status === 410);
  const headers = [
    'content-type',
    PAGE_CONTENT_TYPE,
    'cache-control',
    cacheable ? cacheControl : 'no-store',
    'x-content-type-options',
    'nosniff',
    'content-security-policy',
    ERROR_PAGE_CSP,
  ];
  if (extra) headers.push(...headerList(extra));
  return bufferAnswer(page.status, headers, page.body);
}
