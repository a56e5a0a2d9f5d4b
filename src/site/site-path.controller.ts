import { All, Controller, Req, Res } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { parseAddress } from '../chain/tape-label';
import { Metered } from '../metering/metered.decorator';
import { SiteService } from './site.service';

const PREFIX = '/site/';

/**
 * `/site/{tape}` and `/site/{tape}/<path>`: sites by tape address on the gateway's own hosts.
 * The path is taken from the raw URL (still percent-encoded) so that it is decoded exactly once,
 * by the site path rules, not by the router.
 */
@Controller('site')
@Metered('site')
export class SitePathController {
  constructor(private readonly site: SiteService) {}

  @All(':tape')
  root(@Req() req: FastifyRequest, @Res() reply: FastifyReply): void {
    const { tape, rest } = splitUrl(req.url);
    if (tape === null) return this.site.noSite(reply);
    this.site.redirectToRoot(reply, `/site/${tape}`, rest);
  }

  @All(':tape/*')
  serve(@Req() req: FastifyRequest, @Res() reply: FastifyReply): void | Promise<void> {
    const { tape, rest } = splitUrl(req.url);
    if (tape === null) return this.site.noSite(reply);
    return this.site.serve(req, reply, tape, rest, `/site/${tape}`);
  }
}

/** `/site/{tape}{rest}`: the tape address, when it is one, and the rest of the URL. */
function splitUrl(url: string): { tape: string | null; rest: string } {
  let end = url.length;
  for (let i = PREFIX.length; i < url.length; i++) {
    const c = url.charCodeAt(i);
    if (c === 47 /* / */ || c === 63 /* ? */) {
      end = i;
      break;
    }
  }
  return { tape: parseAddress(url.slice(PREFIX.length, end)), rest: url.slice(end) };
}
