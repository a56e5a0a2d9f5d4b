import {
  Controller,
  HttpCode,
  Optional,
  Param,
  Post,
  Put,
  Req,
  Res,
  UseGuards,
} from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { PeerRequest } from '../http/client-ip';
import { Metered } from '../metering/metered.decorator';
import { MeteringService } from '../metering/metering.service';
import { setRateLimitHeaders } from '../metering/rate-limit-headers';
import { RequestHeaders, validationPipe } from '../http/validation-pipe';
import { readBoundedBody } from './bounded-body';
import { UploadHeaders } from './upload-request.dto';
import { uploadErrors, UploadSlotsFullError } from './upload-error';
import { VersionUploadResult, VersionUploadService } from './version-upload.service';
import { WriterOnlyGuard } from './writer-only.guard';

const INPUT = validationPipe((message) => uploadErrors.badRequest(message));

/** A `missing` question of 4,096 commitments is about 275 KB of JSON. */
const MAX_MISSING_BODY = 512 * 1024;

/** The bytes of versions (docs/uploads.md, "Version bytes"); guards as for `PUT /upload/{track}`. */
@Controller('upload')
@UseGuards(WriterOnlyGuard)
@Metered('upload')
export class VersionUploadController {
  constructor(
    private readonly uploads: VersionUploadService,
    @Optional() private readonly metering?: MeteringService,
  ) {}

  @Put(':tape/:commitment')
  async upload(
    @RequestHeaders(INPUT) headers: UploadHeaders,
    @Param('tape') tape: string,
    @Param('commitment') commitment: string,
    @Req() req: FastifyRequest,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<VersionUploadResult> {
    const length = headers.contentLength;
    return this.uploads
      .upload({
        tape,
        commitment,
        client: this.metering?.clientKeyOf(req as unknown as PeerRequest) ?? req.ip,
        contentLength: length === undefined ? undefined : Number(length),
        signer: headers.signer,
        timestamp: headers.timestamp,
        signature: headers.signature,
        body: req.raw,
      })
      .catch((err: unknown) => {
        if (err instanceof UploadSlotsFullError) setRateLimitHeaders(reply, err.decision);
        throw err;
      });
  }

  @Post(':tape/missing')
  @HttpCode(200)
  async missing(
    @RequestHeaders(INPUT) headers: UploadHeaders,
    @Param('tape') tape: string,
    @Req() req: FastifyRequest,
  ): Promise<{ missing: string[] }> {
    const body = await readBoundedBody(req.raw, headers.contentLength, MAX_MISSING_BODY);
    return { missing: await this.uploads.missing(tape, headers, body) };
  }
}
