import {
  Credential,
  CredentialRegistry,
  CredentialSummary,
  IssuedCredential,
  RevokeOutcome,
} from './credential-registry';

/**
 * A CredentialRegistry opened on first use, for a root whose configuration is read only when a
 * command needs it (the CLI's `tape gateway credentials …`). `open()` says whether the store can
 * be opened apart from whether it then answers; `close()` closes it only if it was opened.
 */
export class LazyCredentialRegistry extends CredentialRegistry {
  private registry?: CredentialRegistry;

  constructor(private readonly openRegistry: () => CredentialRegistry) {
    super();
  }

  open(): CredentialRegistry {
    this.registry ??= this.openRegistry();
    return this.registry;
  }

  async issue(tapeAddress: string, now?: Date): Promise<IssuedCredential> {
    return this.open().issue(tapeAddress, now);
  }

  async list(): Promise<CredentialSummary[]> {
    return this.open().list();
  }

  async revoke(accessKeyId: string, now?: Date): Promise<RevokeOutcome> {
    return this.open().revoke(accessKeyId, now);
  }

  async find(accessKeyId: string): Promise<Credential | null> {
    return this.open().find(accessKeyId);
  }

  async close(): Promise<void> {
    const registry = this.registry;
    this.registry = undefined;
    await registry?.close();
  }
}
