import type { PublicKey } from '@solana/web3.js';
import { VersionConflictError } from './chain/chain-error';
import { ApiError } from './http/api-error';
import { VersionPublishing, VersionPublishingWiring } from './s3/tape-backend/version-publishing';
import { PublishService } from './upload/publish.service';
import { stagingOwner } from './tracks/gc/version-owner';
import { UploadModule } from './upload/upload.module';

/** The S3 group commit's Publish: the upload room's `publishOwn` (docs/versions.md). */
class UploadVersionPublishing extends VersionPublishing {
  constructor(private readonly publisher: PublishService) {
    super();
  }

  async publishOwn(tape: PublicKey, root: Buffer, expectedSequence: number): Promise<void> {
    await this.publisher.publishOwn(tape, root, expectedSequence);
  }

  isConflict(error: unknown): boolean {
    return (
      error instanceof VersionConflictError ||
      (error instanceof ApiError && error.code === 'version_conflict')
    );
  }

  stagingOwner(tape: PublicKey, version: number): string {
    return stagingOwner(tape, version);
  }
}

export const S3_VERSION_PUBLISHING: VersionPublishingWiring = {
  imports: [UploadModule],
  provider: {
    provide: VersionPublishing,
    inject: [PublishService],
    useFactory: (publisher: PublishService) => new UploadVersionPublishing(publisher),
  },
};
