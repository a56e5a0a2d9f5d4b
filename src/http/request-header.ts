import type { IncomingHttpHeaders } from 'node:http';

/**
 * A request header as one string, or undefined. Node gives a list for a few repeated headers;
 * it is joined as HTTP joins a repeated list header (`, `).
 */
export function requestHeader(
  req: { readonly headers: IncomingHttpHeaders },
  name: string,
): string | undefined {
  const value = req.headers[name];
  return Array.isArray(value) ? value.join(', ') : value;
}
