import { Controller, Get, Head, Param, Req, Res } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { MemoizedValidationPipe } from '../http/validation-pipe';
import { Metered } from '../metering/metered.decorator';
import { ObjectAnswerWriter } from './object-answer-writer';
import { objectErrors } from './object-errors';
import { ObjectTrackParams } from './object-track.params';

/** A malformed address: 400 invalid_track_address (memoized: this is a hot read route). */
const OBJECT_INPUT = new MemoizedValidationPipe(() => objectErrors.invalidAddress());

/**
 * `GET|HEAD /object/{track}`: a track's decoded payload by its address (spec 4.1). The way in
 * for what the edge does not take (src/object/object-edge.ts): a track whose chain record is not
 * cached yet, and malformed addresses. The guard meters, the pipe validates; the one writer of
 * object answers (object-answer-writer.ts, the edge's too) answers, with the headers the guard
 * set.
 */
@Controller('object')
@Metered('object')
export class ObjectController {
  constructor(private readonly writer: ObjectAnswerWriter) {}

  /** Declared (before GET, so Fastify does not add its own HEAD route) so that HEAD never reads
   * the payload rather than relying on the adapter to drop a body. */
  @Head(':track')
  head(
    @Param(OBJECT_INPUT) params: ObjectTrackParams,
    @Req() req: FastifyRequest,
    @Res() reply: FastifyReply,
  ): Promise<void> {
    return this.serve(params.track, req, reply);
  }

  @Get(':track')
  get(
    @Param(OBJECT_INPUT) params: ObjectTrackParams,
    @Req() req: FastifyRequest,
    @Res() reply: FastifyReply,
  ): Promise<void> {
    return this.serve(params.track, req, reply);
  }

  private serve(track: string, req: FastifyRequest, reply: FastifyReply): Promise<void> {
    const head: string[] = [];
    for (const [name, value] of Object.entries(reply.getHeaders())) {
      if (value !== undefined) head.push(name, String(value));
    }
    reply.hijack();
    return this.writer.respond(req.raw, reply.raw, track, head);
  }
}
