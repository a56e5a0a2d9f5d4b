/** An operator-issued S3 credential, scoped to one tape. */
export interface S3Credential {
  accessKeyId: string;
  /** The plain secret: SigV4 needs it to recompute signatures (store it encrypted at rest). */
  secretAccessKey: string;
  /** The only tape (bucket) this credential may touch. */
  tapeAddress: string;
  /** A revoked credential is answered as unknown (InvalidAccessKeyId). */
  revoked: boolean;
}

/** Port: where issued credentials are looked up. Implemented by the lead over the gateway's store. */
export abstract class S3CredentialStore {
  /** The credential with this access key id, or null when none was ever issued. */
  abstract findByAccessKeyId(accessKeyId: string): Promise<S3Credential | null>;
}
