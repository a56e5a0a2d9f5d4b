import type { IncomingMessage } from 'node:http';

/**
 * The request target of an HTTP/1.1 request line, made origin-form before anything routes on it
 * (RFC 9112 §3.2). Node hands the target over as sent, and Fastify's router strips any
 * `http://<anything>/` prefix by itself: without this step `GET http://x/healthz` with a site's
 * Host reached the gateway's own routes, skipping the host rewrite.
 *
 * - origin-form (`/path?query`) passes unchanged;
 * - absolute-form (`http://host[:port]/path?query`, scheme `http` or `https` in any case) is
 *   accepted as RFC 9112 §3.2.2 requires, and becomes its path and query, when its authority is
 *   the Host header (compared without case) or there is no Host header (HTTP/1.0; the authority
 *   then becomes the Host). A client must send both identical (§3.2): when they differ, a proxy
 *   in front and the gateway could disagree on which site a request is for, so it is refused;
 * - anything else (asterisk-form `*`, authority-form `host:port`, other schemes, userinfo,
 *   an empty authority, a fragment) is refused.
 *
 * CONNECT never gets here: Node closes the connection of a CONNECT when nobody listens for it.
 */
export type RequestTarget =
  { ok: true; url: string; host: string | undefined } | { ok: false; reason: string };

const ABSOLUTE = /^https?:\/\//i;

export type TargetRequest = Pick<IncomingMessage, 'url' | 'headers'>;

/** Why a request's target cannot be made origin-form (`originForm`). */
export interface RefusedTarget {
  refused: string;
}

/**
 * The request's target made origin-form in place, for every listener that routes on it (the
 * main listener, the Fastify rewrites of the gateway and the S3 listener): returns the
 * origin-form URL, with `req.url` set to it and the authority as the Host where there was none;
 * or, for a target that cannot be, why (the request left untouched). An origin-form target
 * costs one character test.
 */
export function originForm(req: TargetRequest): string | RefusedTarget {
  const url = req.url ?? '/';
  if (url.charCodeAt(0) === 47 /* / */) return url;
  const target = originFormTarget(url, req.headers.host);
  if (!target.ok) return { refused: target.reason };
  req.headers.host = target.host;
  return (req.url = target.url);
}

/** `url`: the target as received; `host`: the Host header, if any. */
export function originFormTarget(url: string, host: string | undefined): RequestTarget {
  if (url.charCodeAt(0) === 47 /* / */) return { ok: true, url, host };
  const scheme = ABSOLUTE.exec(url);
  if (scheme === null) {
    return refused('the request target must be a path (origin-form) or an absolute http URL');
  }
  const rest = url.slice(scheme[0].length);
  let end = 0;
  while (end < rest.length && !'/?#'.includes(rest[end])) end++;
  const authority = rest.slice(0, end);
  const tail = rest.slice(end);
  if (authority === '' || authority.includes('@')) {
    return refused('the request target has no valid authority');
  }
  if (tail.charCodeAt(0) === 35 /* # */) return refused('the request target has a fragment');
  if (host !== undefined && host.trim().toLowerCase() !== authority.toLowerCase()) {
    return refused('the authority of an absolute request target must equal the Host header');
  }
  const path = tail === '' ? '/' : tail.charCodeAt(0) === 63 /* ? */ ? `/${tail}` : tail;
  return { ok: true, url: path, host: host ?? authority };
}

function refused(reason: string): RequestTarget {
  return { ok: false, reason };
}
