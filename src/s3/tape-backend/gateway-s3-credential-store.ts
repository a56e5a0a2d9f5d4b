import { Injectable, OnModuleDestroy } from '@nestjs/common';
import { S3Config } from '../../config/s3.config';
import { StorageConfig } from '../../config/storage.config';
import { CredentialRegistry } from '../../credentials/credential-registry';
import { openCredentialRegistry } from '../../credentials/open-credential-registry';
import { SharedState } from '../../shared-state/shared-state';
import { S3Credential, S3CredentialStore } from '../s3-credential-store';
import { S3Error } from '../s3-error';

/**
 * The credentials `tape gateway credentials issue` wrote: the data directory's SQLite, or the
 * replicas' shared Redis (`storage.shared.redis_url`). Each lookup reads the store (a
 * primary-key read, or one Redis round trip): nothing is cached, so a credential issued or
 * revoked through any replica applies to every replica's very next request.
 */
@Injectable()
export class GatewayS3CredentialStore extends S3CredentialStore implements OnModuleDestroy {
  private readonly registry: CredentialRegistry;

  constructor(storage: StorageConfig, s3: S3Config, shared: SharedState) {
    super();
    this.registry = openCredentialRegistry(storage, s3, shared.redis);
  }

  /** A store that cannot answer is `503 SlowDown` (clients retry), never a pass or a 500. */
  async findByAccessKeyId(accessKeyId: string): Promise<S3Credential | null> {
    try {
      return await this.registry.find(accessKeyId);
    } catch (error) {
      throw new S3Error(
        'SlowDown',
        `the credential store cannot be read (${(error as Error).message}); retry later`,
        {},
        { 'Retry-After': '5' },
      );
    }
  }

  async onModuleDestroy(): Promise<void> {
    await this.registry.close();
  }
}
