import { DynamicModule, Module } from '@nestjs/common';
import { APP_FILTER } from '@nestjs/core';
import { AdminModule } from './admin/admin.module';
import { ChainModule } from './chain/chain.module';
import { AllExceptionsFilter } from './http/all-exceptions.filter';
import { AppConfig } from './config/app-config';
import { ConfigModule } from './config/config.module';
import { HealthModule } from './health/health.module';
import { MeteringModule } from './metering/metering.module';
import { ObjectModule } from './object/object.module';
import { ObservabilityModule } from './observability/observability.module';
import { S3Module } from './s3/s3.module';
import { tapeS3Options } from './s3/tape-backend/tape-s3-options';
import { S3_VERSION_PUBLISHING } from './s3-version-publishing';
import { SiteModule } from './site/site.module';
import { TracksModule } from './tracks/tracks.module';
import { UploadModule } from './upload/upload.module';
import { VerifyModule } from './verify/verify.module';

/** The gateway: every feature module, over the shared config/chain/tracks services. */
@Module({})
export class AppModule {
  static forRoot(config: AppConfig): DynamicModule {
    return {
      module: AppModule,
      imports: [
        ConfigModule.forRoot(config),
        HealthModule,
        ChainModule,
        TracksModule,
        MeteringModule,
        ObservabilityModule,
        AdminModule,
        UploadModule,
        ObjectModule,
        SiteModule,
        VerifyModule,
        S3Module.forRoot(tapeS3Options(S3_VERSION_PUBLISHING)),
      ],
      providers: [{ provide: APP_FILTER, useClass: AllExceptionsFilter }],
    };
  }
}
