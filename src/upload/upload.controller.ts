import { Controller, Get, Optional, Param, Put, Req, Res, UseGuards } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { GatewayIdentity } from '../chain/gateway-identity';
import { ChainReader } from '../chain/chain-reader';
import { TapeInstructions } from '../chain/tape-instructions';
import { StorageConfig } from '../config/storage.config';
import type { PeerRequest } from '../metering/client-ip';
import { Metered } from '../metering/metered.decorator';
import { MeteringService } from '../metering/metering.service';
import { setRateLimitHeaders } from '../metering/rate-limit-headers';
import { RequestHeaders, validationPipe } from '../http/validation-pipe';
import { UploadHeaders, UploadTrackParams } from './upload-request.dto';
import { UploadResult, UploadService } from './upload.service';
import { uploadErrors, UploadSlotsFullError } from './upload-error';
import { WriterOnlyGuard } from './writer-only.guard';

/** Malformed input: 400 with the DTO's message, as the gateway's error body. */
const UPLOAD_INPUT = validationPipe((message) => uploadErrors.badRequest(message));

@Controller('upload')
export class UploadController {
  constructor(
    private readonly uploads: UploadService,
    private readonly identity: GatewayIdentity,
    private readonly chain: ChainReader,
    private readonly program: TapeInstructions,
    private readonly storage: StorageConfig,
    @Optional() private readonly metering?: MeteringService,
  ) {}

  /** What a writer needs to know before uploading (segment size, keys). */
  @Get('config')
  async config() {
    const network = await this.chain.networkConfig();
    return {
      role: this.identity.role,
      segment_bytes: this.storage.segment_bytes,
      gateway_key: this.identity.publicKey.toBase58(),
      storage_authority: network.storageAuthority.toBase58(),
      program_id: this.program.programId.toBase58(),
    };
  }

  /** Guards in order: metering first, then a reader's refusal, then the input's form. */
  @Put(':track')
  @UseGuards(WriterOnlyGuard)
  @Metered('upload')
  async upload(
    @RequestHeaders(UPLOAD_INPUT) headers: UploadHeaders,
    @Param(UPLOAD_INPUT) params: UploadTrackParams,
    @Req() req: FastifyRequest,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<UploadResult> {
    const length = headers.contentLength;
    return this.uploads
      .upload({
        track: params.track,
        client: this.metering?.clientKeyOf(req as unknown as PeerRequest) ?? req.ip,
        contentLength: length === undefined ? undefined : Number(length),
        signer: headers.signer,
        timestamp: headers.timestamp,
        signature: headers.signature,
        segment: headers.segment,
        body: req.raw,
      })
      .catch((err: unknown) => {
        // Metering's writer: Retry-After and RateLimit-* beside the gateway's error body.
        if (err instanceof UploadSlotsFullError) setRateLimitHeaders(reply, err.decision);
        throw err;
      });
  }
}
