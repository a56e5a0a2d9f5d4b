import type { FastifyInstance } from 'fastify';
import type { IncomingMessage } from 'node:http';
import { isIP } from 'node:net';
import { codeForStatus, errorBody } from '../common/error-body';
import { sendErrorBody } from '../common/error-reply';
import { originFormTarget } from '../common/request-target';
import type { SiteConfig } from '../config/site.config';

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

/** Distinct Host values seen; past this the memo starts over (hostile hosts cannot grow it). */
const MEMO_LIMIT = 10000;

export function createHostRewrite(
  site: Pick<
    SiteConfig,
    'domains' | 'subdomain_suffix' | 'txt_domains' | 'gateway_hosts' | 'public_url'
  >,
): (req: RewritableRequest) => string {
  const classifier = new HostClassifier(site);
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
    if (typeof host !== 'string' || !classifier.isSiteHost(host)) return url;
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

export class HostClassifier {
  private readonly domains: Set<string>;
  private readonly gatewayHosts: Set<string>;
  private readonly suffix: string | null;
  private readonly txtDomains: boolean;
  private readonly memo = new Map<string, boolean>();

  constructor(
    site: Pick<
      SiteConfig,
      'domains' | 'subdomain_suffix' | 'txt_domains' | 'gateway_hosts' | 'public_url'
    >,
  ) {
    this.domains = new Set(
      Object.keys(site.domains ?? {})
        .map((d) => hostNameOf(d))
        .filter((d): d is string => d !== null),
    );
    this.suffix = hostNameOf(site.subdomain_suffix ?? '');
    this.txtDomains = site.txt_domains;
    const own = [...(site.gateway_hosts ?? [])];
    if (this.suffix) own.push(this.suffix);
    if (site.public_url) own.push(hostOfUrl(site.public_url));
    this.gatewayHosts = new Set(own.map((h) => hostNameOf(h)).filter((h): h is string => !!h));
  }

  isSiteHost(rawHost: string): boolean {
    const known = this.memo.get(rawHost);
    if (known !== undefined) return known;
    const answer = this.classify(rawHost);
    if (this.memo.size >= MEMO_LIMIT) this.memo.clear();
    this.memo.set(rawHost, answer);
    return answer;
  }

  private classify(rawHost: string): boolean {
    const name = hostNameOf(rawHost);
    if (name === null) return false;
    if (this.domains.has(name)) return true;
    if (this.gatewayHosts.has(name)) return false;
    if (isIP(name) !== 0) return false;
    if (
      this.suffix !== null &&
      name.length > this.suffix.length &&
      name.endsWith(`.${this.suffix}`)
    ) {
      return true;
    }
    return this.txtDomains && name.includes('.');
  }
}

/**
 * The host name of a Host value: lower case, without port, brackets or a trailing dot; null
 * when it is empty or has characters no host name has. (Full validation is the resolver's.)
 */
export function hostNameOf(raw: string): string | null {
  let text = raw.trim().toLowerCase();
  if (text === '' || text.length > 300 || !/^[\x21-\x7e]+$/.test(text)) return null;
  if (text.startsWith('[')) {
    const close = text.indexOf(']');
    if (close < 0) return null;
    text = text.slice(1, close);
  } else {
    const colon = text.indexOf(':');
    // Several colons: a bare IPv6 address (no port can be told apart).
    if (colon >= 0 && text.indexOf(':', colon + 1) < 0) text = text.slice(0, colon);
  }
  if (text.endsWith('.')) text = text.slice(0, -1);
  return text === '' ? null : text;
}

function hostOfUrl(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return url;
  }
}
