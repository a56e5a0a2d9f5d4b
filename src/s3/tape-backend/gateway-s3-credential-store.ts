import { Injectable } from '@nestjs/common';
import { CredentialRegistry } from '../../credentials/credential-registry';
import { S3Credential, S3CredentialStore } from '../s3-credential-store';
import { S3Error } from '../s3-error';

/**
 * The credentials `tape gateway credentials issue` wrote: the data directory's SQLite, or the
 * replicas' shared Redis (`storage.shared.redis_url`), from CredentialsModule. Each lookup reads
 * the store (a primary-key read, or one Redis round trip): nothing is cached, so a credential
 * issued or revoked through any replica applies to every replica's very next request.
 */
@Injectable()
export class GatewayS3CredentialStore extends S3CredentialStore {
  constructor(private readonly registry: CredentialRegistry) {
    super();
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
}
