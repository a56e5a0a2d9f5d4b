import { Global, Module } from '@nestjs/common';
import { ConfigModule as NestConfigModule } from '@nestjs/config';
import { AppConfig, GatewayConfig } from './app-config';
import { ChainConfig } from './chain.config';
import { KeyBalanceConfig } from './key-balance.config';
import { loadConfig } from './config-loader';
import { LocalnetConfig } from './localnet.config';
import { MeteringConfig } from './metering.config';
import { S3Config } from './s3.config';
import { SiteConfig } from './site.config';
import { StorageConfig } from './storage.config';

/**
 * Validated configuration, once. Each namespace is injectable by its class, so a service asks
 * for exactly what it reads (`constructor(private readonly site: SiteConfig)`).
 */
@Global()
@Module({})
export class ConfigModule {
  static forRoot(config: AppConfig = loadConfig()) {
    return {
      module: ConfigModule,
      imports: [NestConfigModule.forRoot({ ignoreEnvFile: true, load: [() => ({ ...config })] })],
      providers: [
        { provide: AppConfig, useValue: config },
        { provide: GatewayConfig, useValue: config.gateway },
        { provide: SiteConfig, useValue: config.gateway.site },
        { provide: MeteringConfig, useValue: config.gateway.metering },
        { provide: S3Config, useValue: config.gateway.s3 },
        { provide: KeyBalanceConfig, useValue: config.gateway.key_balance },
        { provide: ChainConfig, useValue: config.chain },
        { provide: StorageConfig, useValue: config.storage },
        { provide: LocalnetConfig, useValue: config.localnet },
      ],
      exports: [
        AppConfig,
        GatewayConfig,
        SiteConfig,
        MeteringConfig,
        S3Config,
        KeyBalanceConfig,
        ChainConfig,
        StorageConfig,
        LocalnetConfig,
      ],
    };
  }
}
