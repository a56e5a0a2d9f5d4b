import { Injectable } from '@nestjs/common';
import { S3Credential, S3CredentialStore } from '../s3-credential-store';
import { S3Error } from '../s3-error';
import { checkSigV4Time, SigningKeyCache, SigV4Verified, verifySigV4 } from './sigv4';
import { parseSigV4Claims, SigV4Request } from './sigv4-parse';

export interface S3Authenticated {
  credential: S3Credential;
  auth: SigV4Verified;
}

/** SigV4 (header or presigned) against the operator-issued credentials. */
@Injectable()
export class S3Authenticator {
  private readonly keys = new SigningKeyCache();

  constructor(private readonly credentials: S3CredentialStore) {}

  async authenticate(request: SigV4Request, nowMs = Date.now()): Promise<S3Authenticated> {
    const claims = parseSigV4Claims(request);
    if (!claims) {
      throw new S3Error(
        'AccessDenied',
        'anonymous requests are not accepted: sign with a credential from `tape gateway credentials issue`',
      );
    }
    checkSigV4Time(claims, nowMs);
    const credential = await this.credentials.findByAccessKeyId(claims.accessKeyId);
    if (!credential || credential.revoked) {
      throw new S3Error(
        'InvalidAccessKeyId',
        'the access key id you provided does not exist in our records (never issued, or revoked)',
        { AWSAccessKeyId: claims.accessKeyId },
      );
    }
    return {
      credential,
      auth: verifySigV4(request, claims, credential.secretAccessKey, this.keys),
    };
  }
}
