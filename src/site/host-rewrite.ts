import type { FastifyInstance } from 'fastify';
import type { IncomingMessage } from 'node:http';
import { codeForStatus, errorBody } from '../common/error-body';
import { sendErrorBody } from '../common/error-reply';
import { originFormTarget } from '../common/request-target';

/**
 * Hostname routing happens before Fastify's router: a request whose Host is a site host has its
 * URL rewritten to the internal prefix `/_host/…`, where the host controller resolves the host
 * to a tape and serves the path from the site's root. A request on one of the gateway's own
 * host names keeps its URL, so `/site/…`, `/object/…` and `/healthz` work there, while a site's
 * own `/healthz` or `/object/x` file on its hostname is served as a site file.
 *
 * Site hosts (decided synchronously, without DNS; the host controller does the async part):
 * - exact `gateway.site.domains` names;
 * - every name under `gateway.site.subdomain_suffix` (a valid label serves that tape; anything
 *   else under the suffix answers 404, so an unknown host never lands on a gateway route);
 * - with `txt_domains`, every other DNS name. IP literals never are site hosts.
 * The gateway's own names: `gateway_hosts`, plus the hosts of `subdomain_suffix` and
 * `public_url`. An operator domain wins over a gateway name.
 *
 * The target is made origin-form first (src/common/request-target.ts): an absolute-form target
 * becomes its path, with its authority as the Host, before the host is classified, so no
 * target form lets a site host reach `/object`, `/healthz`, `/upload` or `/site`. A target that
 * cannot be made origin-form is moved to `REFUSED_TARGET_ROUTE`, answered 400 there.
 */

export const HOST_ROUTE_PREFIX = '/_host';

/** Set on the raw request by the rewrite: only rewritten requests are served by host. */
export const SITE_HOST = Symbol('tape.siteHost');

/** Where a refused request target is routed (and answered 400); the reason is on the request. */
export const REFUSED_TARGET_ROUTE = '/_refused-target';
export const REFUSED_TARGET = Symbol('tape.refusedTarget');

export type RewritableRequest = Pick<IncomingMessage, 'url' | 'headers'> & {
  [SITE_HOST]?: true;
  [REFUSED_TARGET]?: string;
};

export function createHostRewrite(
  isSiteHost: (host: string) => boolean,
): (req: RewritableRequest) => string {
  return (req) => {
    let url = req.url ?? '/';
    if (url.charCodeAt(0) !== 47 /* / */) {
      const target = originFormTarget(url, req.headers.host);
      if (!target.ok) {
        req[REFUSED_TARGET] = target.reason;
        return REFUSED_TARGET_ROUTE;
      }
      url = target.url;
      req.headers.host = target.host;
    }
    const host = req.headers[':authority'] ?? req.headers.host;
    if (typeof host !== 'string' || !isSiteHost(host)) return url;
    req[SITE_HOST] = true;
    return HOST_ROUTE_PREFIX + url;
  };
}

/**
 * The route a refused request target is moved to: 400 with the reason in the stable error body.
 * Typed on a gateway host without the rewrite's mark, it is no route at all (404).
 */
export function registerRefusedTargetRoute(fastify: FastifyInstance): void {
  fastify.all(REFUSED_TARGET_ROUTE, (request, reply) => {
    const reason = (request.raw as RewritableRequest)[REFUSED_TARGET];
    if (reason === undefined) {
      return sendErrorBody(reply, 404, errorBody(codeForStatus(404), 'no such route'));
    }
    sendErrorBody(reply, 400, errorBody(codeForStatus(400), reason));
  });
}
