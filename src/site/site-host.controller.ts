import { All, Controller, Req, Res } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ApiError } from '../common/api-error';
import { HostResolution } from '../domains/host-resolution';
import { HostResolverService } from '../domains/host-resolver.service';
import { Metered } from '../metering/metered.decorator';
import { HOST_ROUTE_PREFIX, SITE_HOST } from './host-rewrite';
import { SiteService } from './site.service';

/** Resolutions that never change for a given Host value (operator domains, labels, bad hosts). */
const STATIC_MEMO_LIMIT = 10000;

/**
 * Sites by hostname: requests the host rewrite (host-rewrite.ts) moved under `/_host`. The host
 * is resolved to a tape (operator domain, subdomain label or DNSSEC TXT binding) and the path is
 * served from the site's root. A host that names no site gets 404, never some other site.
 */
@Controller(HOST_ROUTE_PREFIX.slice(1))
@Metered('site')
export class SiteHostController {
  private readonly staticAnswers = new Map<string, HostResolution>();

  constructor(
    private readonly resolver: HostResolverService,
    private readonly site: SiteService,
  ) {}

  @All('*')
  serve(@Req() req: FastifyRequest, @Res() reply: FastifyReply): void | Promise<void> {
    // Only the rewrite may route here: `/_host/…` typed on a gateway host is no route at all.
    if ((req.raw as { [SITE_HOST]?: true })[SITE_HOST] !== true) {
      throw new ApiError(404, 'not_found', `Cannot ${req.method} ${req.url}`);
    }
    const rawHost = req.headers[':authority'] ?? req.headers.host;
    const known = typeof rawHost === 'string' ? this.staticAnswers.get(rawHost) : undefined;
    if (known) return this.answer(req, reply, known);
    return this.resolver.resolve(rawHost).then((resolution) => {
      if (typeof rawHost === 'string' && isStatic(resolution)) this.remember(rawHost, resolution);
      return this.answer(req, reply, resolution);
    });
  }

  private answer(
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

  private remember(rawHost: string, resolution: HostResolution): void {
    if (this.staticAnswers.size >= STATIC_MEMO_LIMIT) this.staticAnswers.clear();
    this.staticAnswers.set(rawHost, resolution);
  }
}

/** TXT bindings expire with their TTL and "none" may become a binding: only these are fixed. */
function isStatic(resolution: HostResolution): boolean {
  return resolution.kind === 'tape' ? resolution.via !== 'txt' : resolution.kind === 'invalid';
}
