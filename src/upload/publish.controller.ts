import { Controller, HttpCode, Param, Post, Req, UseGuards } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import { Metered } from '../metering/metered.decorator';
import { RequestHeaders, validationPipe } from '../http/validation-pipe';
import { readBoundedBody } from './bounded-body';
import { CosignedPublish, PublishService } from './publish.service';
import { UploadHeaders } from './upload-request.dto';
import { uploadErrors } from './upload-error';
import { WriterOnlyGuard } from './writer-only.guard';

const INPUT = validationPipe((message) => uploadErrors.badRequest(message));

/** `{root, expected_sequence, fee_payer, alias}` is about 190 bytes. */
const MAX_PUBLISH_BODY = 4096;

/** `POST /publish/{tape}`: certification and the storage authority's signature (docs/uploads.md). */
@Controller('publish')
export class PublishController {
  constructor(private readonly publishing: PublishService) {}

  @Post(':tape')
  @HttpCode(200)
  @UseGuards(WriterOnlyGuard)
  @Metered('upload')
  async publish(
    @RequestHeaders(INPUT) headers: UploadHeaders,
    @Param('tape') tape: string,
    @Req() req: FastifyRequest,
  ): Promise<CosignedPublish> {
    const body = await readBoundedBody(req.raw, headers.contentLength, MAX_PUBLISH_BODY);
    return this.publishing.cosign(tape, headers, body);
  }
}
