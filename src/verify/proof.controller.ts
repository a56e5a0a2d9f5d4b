import { Controller, Get, Param, Req, Res } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { parsePathSelector } from '../domains/version-selector';
import { ApiError } from '../http/api-error';
import { Metered } from '../metering/metered.decorator';
import { TapeProof } from './core/tape-verifier';
import { ProofService } from './proof.service';

/**
 * `GET /proof/site/{tape}/{path}` (`{tape}@<n>` and `{tape}@<alias>` for a pinned version or an
 * alias) and `GET /proof/object/{track}` (docs/verify.md): the proof
 * of what the site or object route answers, as JSON. Metered like object reads.
 */
@Controller('proof')
@Metered('object')
export class ProofController {
  constructor(private readonly proofs: ProofService) {}

  @Get('site/*')
  async site(
    @Req() req: FastifyRequest,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<TapeProof> {
    const { tape, path } = splitSiteUrl(req.raw.url ?? '');
    const at = tape.indexOf('@');
    if (at < 0) return answer(reply, await this.proofs.siteProof(tape, path));
    const selector = parsePathSelector(tape.slice(at + 1));
    if (selector.kind === 'bad')
      throw new ApiError(400, 'bad_request', `the version selector is ${selector.reason}`);
    return answer(reply, await this.proofs.siteProof(tape.slice(0, at), path, selector));
  }

  @Get('object/:track')
  async object(
    @Param('track') track: string,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<TapeProof> {
    return answer(reply, await this.proofs.objectProof(track));
  }
}

function answer(reply: FastifyReply, proof: TapeProof): TapeProof {
  // A path's proof changes with the tape's pointer: caches must ask again.
  reply.header('cache-control', 'no-cache');
  reply.header('x-tape-version', String(proof.version));
  reply.header('access-control-allow-origin', '*');
  return proof;
}

/** `/proof/site/{tape}{path}?query` -> the tape and the raw (still encoded) path below the site. */
export function splitSiteUrl(url: string): { tape: string; path: string } {
  const q = url.indexOf('?');
  const bare = q < 0 ? url : url.slice(0, q);
  const rest = bare.slice('/proof/site/'.length);
  const slash = rest.indexOf('/');
  return slash < 0
    ? { tape: rest, path: '/' }
    : { tape: rest.slice(0, slash), path: rest.slice(slash) };
}
