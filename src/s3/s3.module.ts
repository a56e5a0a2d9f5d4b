import { DynamicModule, Module, ModuleMetadata, Provider } from '@nestjs/common';
import { S3Authenticator } from './auth/s3-authenticator';
import { S3Backend } from './s3-backend';
import { S3BodyReader } from './body/s3-body-reader';
import { S3BucketHandlers } from './handlers/s3-bucket-handlers';
import { S3CredentialStore } from './s3-credential-store';
import { S3MultipartHandlers } from './handlers/s3-multipart-handlers';
import { S3ObjectHandlers } from './handlers/s3-object-handlers';
import { S3RequestHandler } from './s3-request-handler';
import { S3RequestMeter, UnmeteredS3RequestMeter } from './s3-request-meter';
import { S3Server } from './s3-server';
import { ListenerDrainModule } from '../http/listener-drain';
import { ShutdownSignalModule } from '../http/shutdown-signal';

export interface S3ModuleOptions {
  /** Modules whose exports the port implementations need. */
  imports?: ModuleMetadata['imports'];
  /**
   * Providers for the ports: S3Backend and S3CredentialStore are required, S3RequestMeter is
   * optional (every request is allowed without one). E.g.
   * `{ provide: S3Backend, useClass: TapeS3Backend }`.
   */
  providers: Provider[];
}

/**
 * The S3-compatible endpoint. It needs the global ConfigModule (S3Config, GatewayConfig,
 * MeteringConfig) and the ports above; it starts its own listener on application bootstrap.
 */
@Module({})
export class S3Module {
  static forRoot(options: S3ModuleOptions): DynamicModule {
    for (const port of [S3Backend, S3CredentialStore]) {
      if (!provides(options.providers, port)) {
        throw new Error(`S3Module.forRoot: a provider for ${port.name} is required`);
      }
    }
    const meter: Provider[] = provides(options.providers, S3RequestMeter)
      ? []
      : [{ provide: S3RequestMeter, useClass: UnmeteredS3RequestMeter }];
    return {
      module: S3Module,
      imports: [...(options.imports ?? []), ShutdownSignalModule, ListenerDrainModule],
      providers: [
        ...options.providers,
        ...meter,
        S3Authenticator,
        S3BodyReader,
        S3BucketHandlers,
        S3ObjectHandlers,
        S3MultipartHandlers,
        S3RequestHandler,
        S3Server,
      ],
      exports: [S3Server],
    };
  }
}

function provides(
  providers: Provider[],
  token: abstract new (...args: never[]) => unknown,
): boolean {
  return providers.some((p) =>
    typeof p === 'function' ? p === token : 'provide' in p && p.provide === token,
  );
}
