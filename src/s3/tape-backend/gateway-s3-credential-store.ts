import { Injectable, OnModuleDestroy } from '@nestjs/common';
import { StorageConfig } from '../../config/storage.config';
import { S3Credential, S3CredentialStore } from '../s3-credential-store';
import { CredentialDatabase } from './credential-database';

/**
 * The credentials `tape gateway credentials issue` wrote into the gateway's data directory. Each
 * lookup reads the database (a primary-key read, microseconds): nothing is cached, so a
 * credential revoked by the operator is refused by the very next request.
 */
@Injectable()
export class GatewayS3CredentialStore extends S3CredentialStore implements OnModuleDestroy {
  private readonly db: CredentialDatabase;

  constructor(storage: StorageConfig) {
    super();
    this.db = CredentialDatabase.open(storage.data_dir);
  }

  async findByAccessKeyId(accessKeyId: string): Promise<S3Credential | null> {
    return this.db.find(accessKeyId);
  }

  onModuleDestroy(): void {
    this.db.close();
  }
}
