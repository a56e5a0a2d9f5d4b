import { Controller, Get } from '@nestjs/common';
import { GatewayIdentity } from '../chain/gateway-identity';
import { ChainReader } from '../chain/chain-reader';
import { TapeInstructions } from '../chain/tape-instructions';
import { SiteConfig } from '../config/site.config';
import { StorageConfig } from '../config/storage.config';

/**
 * `GET /upload/config`. A version's bytes are uploaded by `PUT /upload/{tape}/{commitment}`
 * (version-upload.controller.ts); the per-file `PUT /upload/{track}` is gone with the per-file
 * accounts (docs/uploads.md).
 */
@Controller('upload')
export class UploadController {
  constructor(
    private readonly identity: GatewayIdentity,
    private readonly chain: ChainReader,
    private readonly program: TapeInstructions,
    private readonly storage: StorageConfig,
    private readonly site: SiteConfig,
  ) {}

  /**
   * What a writer needs to know before uploading (segment size, keys), and the `.well-known/`
   * names this gateway certifies and serves (`tape deploy` publishes those it finds).
   */
  @Get('config')
  async config() {
    const network = await this.chain.networkConfig();
    return {
      role: this.identity.role,
      segment_bytes: this.storage.segment_bytes,
      gateway_key: this.identity.publicKey.toBase58(),
      storage_authority: network.storageAuthority.toBase58(),
      program_id: this.program.programId.toBase58(),
      well_known_allow: this.site.well_known_allow,
    };
  }
}
