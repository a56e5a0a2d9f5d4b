import { SitePolicy } from './site-policy';

/**
 * Cross-origin reads of site content. A site answers `Access-Control-Allow-Origin` only to an
 * origin in its `cors_origins` (echoing it, never a list), or `*` when the list allows any. No
 * credentials are ever allowed: the gateway sets no cookies and content is public.
 */

/** Request headers a cross-origin reader may send (conditional and range reads). */
export const ALLOWED_REQUEST_HEADERS = 'Range, If-None-Match, If-Range, If-Modified-Since';
export const ALLOWED_METHODS = 'GET, HEAD, OPTIONS';
/** Response headers a cross-origin reader may see beyond the CORS-safelisted ones. */
export const EXPOSED_HEADERS =
  'ETag, Content-Length, Content-Range, Accept-Ranges, Content-Disposition';
const PREFLIGHT_MAX_AGE_SECS = '600';
const ALLOWED_HEADER_NAMES = new Set(
  ALLOWED_REQUEST_HEADERS.toLowerCase()
    .split(',')
    .map((h) => h.trim()),
);

/** The Access-Control-Allow-Origin value for this request's Origin, or undefined for none. */
export function allowedOrigin(policy: SitePolicy, origin: string | undefined): string | undefined {
  if (origin === undefined || origin === '') return undefined;
  if (policy.corsAny) return '*';
  if (policy.corsOrigins.size === 0) return undefined;
  // Browsers send the normal form; lower-casing covers hand-written clients.
  const normal = origin.toLowerCase();
  return policy.corsOrigins.has(normal) ? normal : undefined;
}

/** Whether the answer depends on the Origin header (then caches must key on it). */
export function variesByOrigin(policy: SitePolicy): boolean {
  return !policy.corsAny && policy.corsOrigins.size > 0;
}

export interface PreflightRequest {
  origin: string | undefined;
  method: string | undefined;
  headers: string | undefined;
}

/**
 * Headers of the answer to an OPTIONS request. A preflight from an allowed origin for GET/HEAD
 * with allowed headers gets the grant; anything else gets no Access-Control-Allow-* headers,
 * which the browser reads as a refusal.
 */
export function preflightHeaders(
  policy: SitePolicy,
  request: PreflightRequest,
): Record<string, string> {
  const headers: Record<string, string> = { allow: ALLOWED_METHODS };
  if (request.method === undefined) return headers;
  headers.vary = 'Origin, Access-Control-Request-Method, Access-Control-Request-Headers';
  const allowed = allowedOrigin(policy, request.origin);
  if (!allowed) return headers;
  if (request.method !== 'GET' && request.method !== 'HEAD') return headers;
  if (!requestedHeadersAllowed(request.headers)) return headers;
  headers['access-control-allow-origin'] = allowed;
  headers['access-control-allow-methods'] = ALLOWED_METHODS;
  headers['access-control-allow-headers'] = ALLOWED_REQUEST_HEADERS;
  headers['access-control-max-age'] = PREFLIGHT_MAX_AGE_SECS;
  return headers;
}

function requestedHeadersAllowed(list: string | undefined): boolean {
  if (list === undefined || list.trim() === '') return true;
  return list
    .toLowerCase()
    .split(',')
    .every((name) => {
      const trimmed = name.trim();
      return trimmed === '' || ALLOWED_HEADER_NAMES.has(trimmed);
    });
}
