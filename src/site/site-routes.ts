import { Injectable, Logger, OnModuleInit } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { parseAddress } from '../chain/tape-label';
import { errorBody } from '../common/error-body';
import { HostResolution } from '../domains/host-resolution';
import { HostRouter } from '../domains/host-router';
import { MeterDecision } from '../metering/meter-decision';
import { MeteringService } from '../metering/metering.service';
import { setRateLimitHeaders } from '../metering/rate-limit-headers';
import { HOST_ROUTE_PREFIX, SITE_HOST } from './host-rewrite';
import { SiteService } from './site.service';

const SITE_PREFIX = '/site/';

/**
 * The site routes, registered on Fastify directly rather than as Nest controllers:
 *
 * - `/site/{tape}` and `/site/{tape}/<path>` (sites by tape address, on the gateway's hosts);
 * - `/_host/<path>` (sites by hostname: requests the host rewrite moved there).
 *
 * Why not a controller: Nest's per-request pipeline (execution context, guards consumer, a
 * promise chain even for synchronous guards) costs more than everything a cached page needs,
 * about a third of a bare Fastify handler's time. Here a cached page is answered synchronously
 * within Fastify's handler. Metering is the same as `@Metered('site')`: MeteringService's
 * `meterRequest` against the `site` budget, the RateLimit headers on every answer, the 429 with
 * the gateway's error body over budget.
 *
 * Paths are taken from the raw URL (still percent-encoded), so they are decoded exactly once,
 * by the site path rules, never by the router.
 */
@Injectable()
export class SiteRoutes implements OnModuleInit {
  private readonly logger = new Logger('site');

  constructor(
    private readonly adapterHost: HttpAdapterHost,
    private readonly site: SiteService,
    private readonly hosts: HostRouter,
    private readonly metering: MeteringService,
  ) {}

  onModuleInit(): void {
    const fastify = this.adapterHost.httpAdapter.getInstance<FastifyInstance>();
    fastify.all('/site/:tape', (req, reply) => this.guard(req, reply, this.siteRoot));
    fastify.all('/site/:tape/*', (req, reply) => this.guard(req, reply, this.sitePath));
    fastify.all(`${HOST_ROUTE_PREFIX}/*`, (req, reply) => this.guard(req, reply, this.hostPath));
  }

  /** `/site/{tape}` without the slash: 308 to the site root, query kept. */
  private readonly siteRoot = (req: FastifyRequest, reply: FastifyReply): void => {
    const { tape, rest } = splitSiteUrl(req.url);
    if (tape === null) return this.site.noSite(reply);
    if (this.site.redirectToSiteOrigin(req, reply, tape, rest)) return;
    if (!this.site.isReadMethod(req.method)) return this.site.methodNotAllowed(reply);
    this.site.redirectToRoot(reply, `/site/${tape}`, rest);
  };

  private readonly sitePath = (req: FastifyRequest, reply: FastifyReply): void | Promise<void> => {
    const { tape, rest } = splitSiteUrl(req.url);
    if (tape === null) return this.site.noSite(reply);
    if (this.site.redirectToSiteOrigin(req, reply, tape, rest)) return;
    return this.site.serve(req, reply, tape, rest, `/site/${tape}`);
  };

  private readonly hostPath = (req: FastifyRequest, reply: FastifyReply): void | Promise<void> => {
    // Only the rewrite may route here: `/_host/…` typed on a gateway host is no route at all.
    if ((req.raw as { [SITE_HOST]?: true })[SITE_HOST] !== true) {
      void reply
        .code(404)
        .header('content-type', 'application/json; charset=utf-8')
        .send(errorBody('not_found', `Cannot ${req.method} ${req.url}`));
      return;
    }
    const resolution = this.hosts.resolve(req.headers[':authority'] ?? req.headers.host);
    if (resolution instanceof Promise) {
      return resolution.then((resolved) => this.serveHost(req, reply, resolved));
    }
    return this.serveHost(req, reply, resolution);
  };

  private serveHost(
    req: FastifyRequest,
    reply: FastifyReply,
    resolution: HostResolution,
  ): void | Promise<void> {
    switch (resolution.kind) {
      case 'tape':
        return this.site.serve(
          req,
          reply,
          resolution.tape,
          req.url.slice(HOST_ROUTE_PREFIX.length),
          '',
        );
      case 'none':
        return this.site.noSite(reply);
      case 'invalid':
        return this.site.noSite(reply, true);
    }
  }

  /**
   * Meters the request, then runs the route; any failure becomes the 500 page, never a stack.
   * Returns nothing even when the answer comes later: a promise handed to Fastify would make it
   * send an empty reply of its own when the promise settles before a streamed body starts.
   */
  private guard(
    req: FastifyRequest,
    reply: FastifyReply,
    route: (req: FastifyRequest, reply: FastifyReply) => void | Promise<void>,
  ): void {
    try {
      const decision = this.metering.meterRequest(req, 'site');
      const answered =
        decision instanceof Promise
          ? decision.then((d) => this.admitted(req, reply, d, route))
          : this.admitted(req, reply, decision, route);
      if (answered instanceof Promise) answered.catch((err: unknown) => this.failed(reply, err));
    } catch (err) {
      this.failed(reply, err);
    }
  }

  private admitted(
    req: FastifyRequest,
    reply: FastifyReply,
    decision: MeterDecision,
    route: (req: FastifyRequest, reply: FastifyReply) => void | Promise<void>,
  ): void | Promise<void> {
    setRateLimitHeaders(reply, decision);
    if (decision.allowed) return route(req, reply);
    const refusal = this.metering.refusal(decision);
    void reply
      .code(429)
      .header('content-type', 'application/json; charset=utf-8')
      .send(refusal.getResponse());
  }

  private failed(reply: FastifyReply, err: unknown): void {
    this.logger.error(err instanceof Error ? (err.stack ?? err.message) : String(err));
    if (reply.sent) {
      reply.raw.destroy();
      return;
    }
    this.site.internalError(reply);
  }
}

/** `/site/{tape}{rest}`: the tape address, when it is one, and the rest of the URL. */
export function splitSiteUrl(url: string): { tape: string | null; rest: string } {
  let end = url.length;
  for (let i = SITE_PREFIX.length; i < url.length; i++) {
    const c = url.charCodeAt(i);
    if (c === 47 /* / */ || c === 63 /* ? */) {
      end = i;
      break;
    }
  }
  return { tape: parseAddress(url.slice(SITE_PREFIX.length, end)), rest: url.slice(end) };
}
