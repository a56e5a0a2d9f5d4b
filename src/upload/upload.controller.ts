import { Controller, Get, Optional, Param, Put, Req, Res } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { GatewayIdentity } from '../chain/gateway-identity';
import { ChainReader } from '../chain/chain-reader';
import { TapeInstructions } from '../chain/tape-instructions';
import { StorageConfig } from '../config/storage.config';
import type { PeerRequest } from '../metering/client-ip';
import { Metered } from '../metering/metered.decorator';
import { MeteringService } from '../metering/metering.service';
import { setRateLimitHeaders } from '../metering/rate-limit-headers';
import { UPLOAD_HEADERS } from './upload-auth';
import { UploadResult, UploadService } from './upload.service';
import { uploadErrors, UploadSlotsFullError } from './upload-error';

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

  @Put(':track')
  @Metered('upload')
  async upload(
    @Param('track') track: string,
    @Req() req: FastifyRequest,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<UploadResult> {
    const header = (name: string) => {
      const value = req.headers[name];
      return Array.isArray(value) ? value[0] : value;
    };
    if (!this.identity.isWriter) throw uploadErrors.reader();
    const length = header('content-length');
    if (length !== undefined && !/^\d{1,16}$/.test(length)) {
      throw uploadErrors.badRequest('malformed Content-Length');
    }
    return this.uploads
      .upload({
        track,
        client: this.metering?.clientKeyOf(req as unknown as PeerRequest) ?? req.ip,
        contentLength: length === undefined ? undefined : Number(length),
        signer: header(UPLOAD_HEADERS.signer),
        timestamp: header(UPLOAD_HEADERS.timestamp),
        signature: header(UPLOAD_HEADERS.signature),
        segment: header(UPLOAD_HEADERS.segment),
        body: req.raw,
      })
      .catch((err: unknown) => {
        // Metering's writer: Retry-After and RateLimit-* beside the gateway's error body.
        if (err instanceof UploadSlotsFullError) setRateLimitHeaders(reply, err.decision);
        throw err;
      });
  }
}
