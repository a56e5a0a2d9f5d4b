import { Controller, Get, Head, Param, Req, Res } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Metered } from '../metering/metered.decorator';
import { ObjectService } from './object.service';

/** `GET|HEAD /object/{track}`: a track's decoded payload by its address (spec 4.1). */
@Controller('object')
@Metered('object')
export class ObjectController {
  constructor(private readonly objects: ObjectService) {}

  /** Declared (before GET, so Fastify does not add its own HEAD route) so that HEAD never reads
   * the payload rather than relying on the adapter to drop a body. */
  @Head(':track')
  head(
    @Param('track') track: string,
    @Req() req: FastifyRequest,
    @Res() reply: FastifyReply,
  ): Promise<void> {
    return this.objects.serve(req, reply, track);
  }

  @Get(':track')
  get(
    @Param('track') track: string,
    @Req() req: FastifyRequest,
    @Res() reply: FastifyReply,
  ): Promise<void> {
    return this.objects.serve(req, reply, track);
  }
}
