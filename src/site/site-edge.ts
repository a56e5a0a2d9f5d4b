import { Injectable, Logger, OnModuleInit } from '@nestjs/common';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { parseAddress } from '../chain/tape-label';
import { watchBodyIdle } from '../http/listener-timeouts';
import { MainListener, SiteHostEdge } from '../http/main-listener';
import { endWithBody } from '../http/response-body';
import { GatewayConfig } from '../config/app-config';
import { HostResolution } from '../domains/host-resolution';
import { HostRoute, HostRouter } from '../domains/host-router';
import { ParsedSelector, parsePathSelector, VersionSelector } from '../domains/version-selector';
import { MeterDecision } from '../metering/meter-decision';
import { MeteringGate } from '../metering/metering-gate';
import { SiteAnswer } from './site-answer';
import { SiteService } from './site.service';

const SITE_PREFIX = '/site/';

/** Longer URLs on the path routes name no site (the gateway's router limit, gateway-app.ts). */
const MAX_URL_BYTES = 8192;

/**
 * The one way into the site routes, a peer of the main listener (src/http/main-listener.ts),
 * which hands it requests before Fastify and Nest see them, their target made origin-form:
 *
 * - a request whose Host the host router sends to a site (an operator domain, a label under the
 *   subdomain suffix, a TXT-bound customer domain, or a host that names no site) is a site
 *   request whatever its path: `/healthz` or `/object/x` there is a file of the site;
 * - on the gateway's own hosts, `/site/{tape}` and `/site/{tape}/<path>`.
 *
 * Each site request passes the metering gate (`site` budget: RateLimit headers on every answer,
 * the gate's 429 over budget), then SiteService answers it (synchronously when the site, the
 * path and the body are in memory) and this edge writes the answer: one `writeHead` with the
 * prepared header list, one write or a stream. Any failure is the built-in 500 page (HTML, like
 * every other refusal of the site routes), or ends the connection once headers are out.
 *
 * Paths are taken from the raw URL (still percent-encoded), so they are decoded exactly once,
 * by the site path rules.
 */
@Injectable()
export class SiteEdge implements SiteHostEdge, OnModuleInit {
  private readonly logger = new Logger('site');
  private readonly bodyIdleMs: number;

  constructor(
    gateway: GatewayConfig,
    private readonly listener: MainListener,
    private readonly hosts: HostRouter,
    private readonly gate: MeteringGate,
    private readonly site: SiteService,
  ) {
    this.bodyIdleMs = gateway.body_idle_timeout_ms;
  }

  onModuleInit(): void {
    this.listener.serveSiteHosts(this);
    this.listener.addRoute(SITE_PREFIX, {
      tryServe: (req, res, url) => {
        this.meter(req, res, url, null);
        return true;
      },
    });
  }

  /** Answers the request when its Host names a site; false leaves a gateway host's untouched. */
  tryServe(req: IncomingMessage, res: ServerResponse, url: string): boolean {
    const route = this.hosts.route(req.headers.host);
    if (route.kind === 'gateway') return false;
    this.meter(req, res, url, route);
    return true;
  }

  ownsHost(host: string): boolean {
    return this.hosts.route(host).kind !== 'gateway';
  }

  /** The metering gate, then the answer: synchronous when the store answers at once. */
  private meter(
    req: IncomingMessage,
    res: ServerResponse,
    url: string,
    host: HostRoute | null,
  ): void {
    if (req.method !== 'GET' && req.method !== 'HEAD') watchBodyIdle(req, this.bodyIdleMs);
    try {
      const decision = this.gate.check(req, 'site');
      if (decision instanceof Promise) {
        decision.then(
          (d) => this.admitted(req, res, url, host, d),
          (err: unknown) => this.fail(res, err),
        );
      } else {
        this.admitted(req, res, url, host, decision);
      }
    } catch (err) {
      this.fail(res, err);
    }
  }

  private admitted(
    req: IncomingMessage,
    res: ServerResponse,
    url: string,
    host: HostRoute | null,
    decision: MeterDecision,
  ): void {
    try {
      if (!decision.allowed) {
        const refusal = this.gate.refusal(decision);
        return this.write(res, refusal, null);
      }
      const answer = !decodable(url)
        ? this.site.refusedUrl('undecodable')
        : host === null
          ? this.byPath(req, url)
          : this.byHost(req, url, host);
      if (answer instanceof Promise) {
        answer.then(
          (a) => this.write(res, a, decision),
          (err: unknown) => this.fail(res, err),
        );
      } else {
        this.write(res, answer, decision);
      }
    } catch (err) {
      this.fail(res, err);
    }
  }

  /** A site host: its path from the domain root. */
  private byHost(
    req: IncomingMessage,
    url: string,
    host: HostRoute,
  ): SiteAnswer | Promise<SiteAnswer> {
    const resolution = this.hosts.resolveRoute(host);
    if (resolution instanceof Promise) {
      return resolution.then((resolved) => this.siteOfHost(req, url, resolved));
    }
    return this.siteOfHost(req, url, resolution);
  }

  private siteOfHost(
    req: IncomingMessage,
    url: string,
    resolution: HostResolution,
  ): SiteAnswer | Promise<SiteAnswer> {
    switch (resolution.kind) {
      case 'tape':
        return this.site.serve(req, resolution.tape, url, '', resolution.selector);
      case 'none':
        return this.site.noSite();
      case 'invalid':
        return this.site.noSite(true);
      case 'bad-version':
        return this.site.badVersion();
    }
  }

  /**
   * `/site/{tape}` (308 to the site root) and `/site/{tape}/<path>` on the gateway's hosts;
   * `/site/{tape}@<n>/…` and `/site/{tape}@<alias>/…` the same for a kept version.
   */
  private byPath(req: IncomingMessage, url: string): SiteAnswer | Promise<SiteAnswer> {
    if (url.length > MAX_URL_BYTES) return this.site.refusedUrl('too-long');
    const { tape, selector, rest } = splitSiteUrl(url);
    if (tape === null) return this.site.noSite();
    if (selector?.kind === 'bad') return this.site.badVersion();
    const redirected = this.site.redirectToSiteOrigin(req, tape, rest, selector);
    if (redirected !== null) return redirected;
    const mount = `/site/${tape}${selector === undefined ? '' : `@${selectorText(selector)}`}`;
    if (rest === '' || rest.charCodeAt(0) === 63 /* ? */) {
      if (!this.site.isReadMethod(req.method)) return this.site.methodNotAllowed();
      return this.site.redirectToRoot(mount, rest);
    }
    return this.site.serve(req, tape, rest, mount, selector);
  }

  /** The one writer of site answers: the answer's headers, then the metering headers. */
  private write(res: ServerResponse, answer: SiteAnswer, decision: MeterDecision | null): void {
    if (res.destroyed) return;
    let headers = answer.headers as string[];
    if (decision !== null && !decision.degraded) {
      // One copy of the (often prepared, shared) list, the metering headers appended to it.
      headers = headers.slice();
      this.gate.appendHeaders(headers, decision);
    }
    res.writeHead(answer.status, headers);
    endWithBody(res, answer.body);
  }

  private fail(res: ServerResponse, err: unknown): void {
    this.logger.error(err instanceof Error ? (err.stack ?? err.message) : String(err));
    if (res.headersSent) {
      res.destroy();
      return;
    }
    try {
      this.write(res, this.site.internalError(), null);
    } catch {
      res.destroy();
    }
  }
}

/**
 * Whether the path of a URL percent-decodes to UTF-8, as every router of the gateway requires
 * (malformed escapes, overlong forms and lone surrogates are not). A site path is decoded
 * again, once, by the site path rules; this only refuses what no tape segment can be.
 */
function decodable(url: string): boolean {
  const q = url.indexOf('?');
  const path = q < 0 ? url : url.slice(0, q);
  if (!path.includes('%')) return true;
  try {
    decodeURIComponent(path);
    return true;
  } catch {
    return false;
  }
}

/**
 * `/site/{tape}[@<n>|@<alias>]{rest}`: the tape address, when it is one, the version selector
 * after `@` (or why it names none), and the rest of the URL.
 */
export function splitSiteUrl(url: string): {
  tape: string | null;
  selector?: ParsedSelector;
  rest: string;
} {
  let end = url.length;
  let at = -1;
  for (let i = SITE_PREFIX.length; i < url.length; i++) {
    const c = url.charCodeAt(i);
    if (c === 64 /* @ */ && at < 0) at = i;
    if (c === 47 /* / */ || c === 63 /* ? */) {
      end = i;
      break;
    }
  }
  const rest = url.slice(end);
  if (at < 0) return { tape: parseAddress(url.slice(SITE_PREFIX.length, end)), rest };
  const tape = parseAddress(url.slice(SITE_PREFIX.length, at));
  return { tape, selector: parsePathSelector(url.slice(at + 1, end)), rest };
}

/** How a path route writes a selector after `@` (`3`, `pr-12`). */
function selectorText(selector: VersionSelector): string {
  return selector.kind === 'pinned' ? String(selector.version) : selector.name;
}
