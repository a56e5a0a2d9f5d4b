import { Controller, Get, Head, Headers, Param, Req, Res } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Readable } from 'node:stream';
import { MeteringGate } from '../metering/metering-gate';
import { Metered } from '../metering/metered.decorator';
import { PEER_HOP_HEADER } from '../tracks/peers/peer-http';
import { RawTrackRequest, RawTrackService } from './raw-track.service';

/**
 * `GET|HEAD /tracks/{hex}` (Range: one range) and `/tracks/{hex}/chunks`: a track's raw bytes and
 * its chunk-hash list by commitment, for readers that fetch from peers (docs/peers.md). Metered
 * on the object budget, and the bytes of each answer charged to the object byte budget, as the
 * object route's.
 */
@Controller('tracks')
@Metered('object')
export class RawTrackController {
  constructor(
    private readonly tracks: RawTrackService,
    private readonly gate: MeteringGate,
  ) {}

  @Head(':hex')
  headBytes(
    @Param('hex') hex: string,
    @Headers() headers: Record<string, string | undefined>,
    @Req() req: FastifyRequest,
    @Res() reply: FastifyReply,
  ): Promise<void> {
    return this.send(req, reply, request(hex, headers, { head: true, chunks: false }));
  }

  @Get(':hex')
  bytes(
    @Param('hex') hex: string,
    @Headers() headers: Record<string, string | undefined>,
    @Req() req: FastifyRequest,
    @Res() reply: FastifyReply,
  ): Promise<void> {
    return this.send(req, reply, request(hex, headers, { head: false, chunks: false }));
  }

  @Get(':hex/chunks')
  chunks(
    @Param('hex') hex: string,
    @Headers() headers: Record<string, string | undefined>,
    @Req() req: FastifyRequest,
    @Res() reply: FastifyReply,
  ): Promise<void> {
    return this.send(req, reply, request(hex, headers, { head: false, chunks: true }));
  }

  private async send(
    incoming: FastifyRequest,
    reply: FastifyReply,
    wanted: RawTrackRequest,
  ): Promise<void> {
    const answer = await this.tracks.answer(wanted);
    const bytes = answer.body ? Number(answer.headers['content-length']) : 0;
    if (bytes > 0) {
      try {
        await this.gate.enforceBytes(incoming, reply, bytes);
      } catch (err) {
        if (answer.body instanceof Readable) answer.body.destroy();
        throw err;
      }
    }
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
