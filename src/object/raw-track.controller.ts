import { Controller, Get, Head, Headers, Param, Res } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { Metered } from '../metering/metered.decorator';
import { PEER_HOP_HEADER } from '../tracks/peers/peer-http';
import { RawTrackRequest, RawTrackService } from './raw-track.service';

/**
 * `GET|HEAD /tracks/{hex}` (Range: one range) and `/tracks/{hex}/chunks`: a track's raw bytes and
 * its chunk-hash list by commitment, for readers that fetch from peers (docs/peers.md). Metered
 * on the object budget.
 */
@Controller('tracks')
@Metered('object')
export class RawTrackController {
  constructor(private readonly tracks: RawTrackService) {}

  @Head(':hex')
  headBytes(
    @Param('hex') hex: string,
    @Headers() headers: Record<string, string | undefined>,
    @Res() reply: FastifyReply,
  ): Promise<void> {
    return this.send(reply, request(hex, headers, { head: true, chunks: false }));
  }

  @Get(':hex')
  bytes(
    @Param('hex') hex: string,
    @Headers() headers: Record<string, string | undefined>,
    @Res() reply: FastifyReply,
  ): Promise<void> {
    return this.send(reply, request(hex, headers, { head: false, chunks: false }));
  }

  @Get(':hex/chunks')
  chunks(
    @Param('hex') hex: string,
    @Headers() headers: Record<string, string | undefined>,
    @Res() reply: FastifyReply,
  ): Promise<void> {
    return this.send(reply, request(hex, headers, { head: false, chunks: true }));
  }

  private async send(reply: FastifyReply, req: RawTrackRequest): Promise<void> {
    const answer = await this.tracks.answer(req);
    reply.status(answer.status).headers(answer.headers);
    await reply.send(answer.body ?? '');
  }
}

function request(
  hex: string,
  headers: Record<string, string | undefined>,
  kind: { head: boolean; chunks: boolean },
): RawTrackRequest {
  return { hex, ...kind, range: headers.range, fromPeer: headers[PEER_HOP_HEADER] === '1' };
}
