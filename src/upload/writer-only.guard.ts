import { CanActivate, Injectable } from '@nestjs/common';
import { GatewayIdentity } from '../chain/gateway-identity';
import { uploadErrors } from './upload-error';

/** Uploads go to a writer: a reader (no storage-authority key) refuses them before any input. */
@Injectable()
export class WriterOnlyGuard implements CanActivate {
  constructor(private readonly identity: GatewayIdentity) {}

  canActivate(): boolean {
    if (!this.identity.isWriter) throw uploadErrors.reader();
    return true;
  }
}
