import { DynamicModule, Module, OnModuleDestroy } from '@nestjs/common';
import { S3Config } from '../config/s3.config';
import { StorageConfig } from '../config/storage.config';
import { LazyAppConfig, LazyConfigModule } from '../config/lazy-config.module';
import { SharedState } from '../shared-state/shared-state';
import { SharedStateModule } from '../shared-state/shared-state.module';
import { CredentialRegistry } from './credential-registry';
import { LazyCredentialRegistry } from './lazy-credential-registry';
import { openCredentialRegistry } from './open-credential-registry';

/**
 * The S3 credentials the configuration names (open-credential-registry.ts: SQLite in the data
 * directory, or the replicas' shared Redis), one CredentialRegistry per process, closed with it.
 * The gateway opens it at start-up (`forRoot`, over its shared Redis connection); the CLI, where
 * only `tape gateway credentials …` reads the gateway's configuration, on first use
 * (`forLazyConfig`, a Redis connection of its own).
 */
@Module({})
export class CredentialsModule implements OnModuleDestroy {
  constructor(private readonly registry: CredentialRegistry) {}

  static forRoot(): DynamicModule {
    return {
      module: CredentialsModule,
      imports: [SharedStateModule],
      providers: [
        {
          provide: CredentialRegistry,
          useFactory: (storage: StorageConfig, s3: S3Config, shared: SharedState) =>
            openCredentialRegistry(storage, s3, shared.redis),
          inject: [StorageConfig, S3Config, SharedState],
        },
      ],
      exports: [CredentialRegistry],
    };
  }

  static forLazyConfig(): DynamicModule {
    return {
      module: CredentialsModule,
      imports: [LazyConfigModule],
      providers: [
        {
          provide: LazyCredentialRegistry,
          useFactory: (config: LazyAppConfig) =>
            new LazyCredentialRegistry(() => {
              const { storage, gateway } = config.get();
              return openCredentialRegistry(storage, gateway.s3);
            }),
          inject: [LazyAppConfig],
        },
        { provide: CredentialRegistry, useExisting: LazyCredentialRegistry },
      ],
      exports: [CredentialRegistry, LazyCredentialRegistry],
    };
  }

  async onModuleDestroy(): Promise<void> {
    await this.registry.close();
  }
}
