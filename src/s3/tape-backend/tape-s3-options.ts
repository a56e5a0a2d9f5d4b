import { MeteringModule } from '../../metering/metering.module';
import { SharedStateModule } from '../../shared-state/shared-state.module';
import { TracksModule } from '../../tracks/tracks.module';
import { S3Backend } from '../s3-backend';
import { S3CredentialStore } from '../s3-credential-store';
import { S3RequestMeter } from '../s3-request-meter';
import type { S3ModuleOptions } from '../s3.module';
import { GatewayS3CredentialStore } from './gateway-s3-credential-store';
import { MeteringS3RequestMeter } from './metering-s3-request-meter';
import { MultipartSpool } from './multipart-spool';
import { ObjectPublisher } from './object-publisher';
import { ObjectSpool } from './object-spool';
import { SpoolBudget } from './spool-budget';
import { TapeDirectory } from './tape-directory';
import { TapeS3Backend } from './tape-s3-backend';

/**
 * The S3 endpoint's ports over tapes, for `S3Module.forRoot(tapeS3Options())` in the gateway:
 * the chain services and GatewayIdentity come from the global ChainModule, the config classes from the
 * global ConfigModule.
 */
export function tapeS3Options(): S3ModuleOptions {
  return {
    imports: [TracksModule, MeteringModule, SharedStateModule],
    providers: [
      TapeDirectory,
      SpoolBudget,
      ObjectSpool,
      MultipartSpool,
      ObjectPublisher,
      { provide: S3Backend, useClass: TapeS3Backend },
      { provide: S3CredentialStore, useClass: GatewayS3CredentialStore },
      { provide: S3RequestMeter, useClass: MeteringS3RequestMeter },
    ],
  };
}
