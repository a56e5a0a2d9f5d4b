import { CredentialCipher, SealedSecret, StoredCredential } from './credential-cipher';
import {
  ACCESS_KEY_ID_PATTERN,
  Credential,
  CredentialRegistry,
  IssuedCredential,
} from './credential-registry';

/**
 * A CredentialRegistry whose secrets are sealed at rest under the operator key (SQLite, Redis):
 * `issue` makes the credential and seals its secret before the store writes it, `find` opens
 * what the store read. Each store only writes and reads its rows; an id that is not the shape
 * of an access key id is never looked up.
 */
export abstract class SealedCredentialRegistry extends CredentialRegistry {
  constructor(protected readonly cipher: CredentialCipher) {
    super();
  }

  async issue(tapeAddress: string, now = new Date()): Promise<IssuedCredential> {
    const { issued, sealed } = this.cipher.issueCredential(tapeAddress, now);
    await this.store(issued, sealed);
    return issued;
  }

  async find(accessKeyId: string): Promise<Credential | null> {
    if (!ACCESS_KEY_ID_PATTERN.test(accessKeyId)) return null;
    const stored = await this.stored(accessKeyId);
    return stored ? this.cipher.openCredential(accessKeyId, stored) : null;
  }

  /** Writes a new credential, its secret sealed; throws when its id is already issued. */
  protected abstract store(issued: IssuedCredential, sealed: SealedSecret): Promise<void>;

  /** The credential as stored, or null when never issued. */
  protected abstract stored(accessKeyId: string): Promise<StoredCredential | null>;
}
