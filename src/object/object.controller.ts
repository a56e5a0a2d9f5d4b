import { Controller, Get, Head, Param, Req, Res } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Readable } from 'node:stream';
import { MemoizedValidationPipe } from '../http/validation-pipe';
import { MeteringGate } from '../metering/metering-gate';
import { Metered } from '../metering/metered.decorator';
import { ObjectAnswer } from './object-answer';
import { objectErrors, ObjectRefusal } from './object-errors';
import { ERROR_CACHE_CONTROL } from './object-route-headers';
import { ObjectService } from './object.service';
import { ObjectTrackParams } from './object-track.params';

/** A malformed address: 400 invalid_track_address (memoized: this is a hot read route). */
const OBJECT_INPUT = new MemoizedValidationPipe(() => objectErrors.invalidAddress());

/**
 * A client that accepts nothing for this long loses its connection, like nginx's send_timeout:
 * a stalled reader must not hold a socket and a file open forever. Progress resets the timer.
 */
export const SEND_STALL_MS = 60_000;

/**
 * `GET|HEAD /object/{track}`: a track's decoded payload by its address (spec 4.1). ObjectService
 * returns the answer; this edge charges its bytes to the client's byte budget (the metering
 * gate) and writes it. Refusals leave as the stable error body, never cached.
 */
@Controller('object')
@Metered('object')
export class ObjectController {
  constructor(
    private readonly objects: ObjectService,
    private readonly gate: MeteringGate,
  ) {}

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

  private async serve(track: string, req: FastifyRequest, reply: FastifyReply): Promise<void> {
    let answer: ObjectAnswer;
    try {
      answer = await this.objects.answer(req, track);
      if (answer.bytes > 0) await this.charge(req, reply, answer);
    } catch (err) {
      // Refusals change (certification, extension) and must not be cached as immutable.
      reply.header('cache-control', ERROR_CACHE_CONTROL);
      if (err instanceof ObjectRefusal) reply.headers(err.headers);
      throw err;
    }
    write(reply, answer);
  }

  /** Charges the bytes about to be sent; refused, the prepared body is released unsent. */
  private async charge(req: FastifyRequest, reply: FastifyReply, answer: ObjectAnswer) {
    try {
      await this.gate.enforceBytes(req, reply, answer.bytes);
    } catch (err) {
      if (answer.body instanceof Readable) answer.body.destroy();
      throw err;
    }
  }
}

/** Writes an answer; a body that stalls for SEND_STALL_MS loses its connection. */
function write(reply: FastifyReply, answer: ObjectAnswer): void {
  reply.code(answer.status).headers(answer.headers);
  if (answer.body !== null) {
    reply.raw.setTimeout(SEND_STALL_MS, () => reply.raw.destroy());
    void reply.send(answer.body);
  } else {
    void reply.send();
  }
}
