import { CredentialDatabase } from './credential-database';
import {
  Credential,
  CredentialRegistry,
  CredentialSummary,
  IssuedCredential,
  RevokeOutcome,
} from './credential-registry';

/** One gateway's credentials in `<data_dir>/s3-credentials.sqlite` (the default). */
export class SqliteCredentialRegistry extends CredentialRegistry {
  constructor(private readonly db: CredentialDatabase) {
    super();
  }

  async issue(tapeAddress: string, now?: Date): Promise<IssuedCredential> {
    return this.db.issue(tapeAddress, now);
  }

  async list(): Promise<CredentialSummary[]> {
    return this.db.list();
  }

  async revoke(accessKeyId: string, now?: Date): Promise<RevokeOutcome> {
    return this.db.revoke(accessKeyId, now);
  }

  async find(accessKeyId: string): Promise<Credential | null> {
    return this.db.find(accessKeyId);
  }

  async close(): Promise<void> {
    this.db.close();
  }
}
