import { DynamicModule, Global, Module, Provider } from '@nestjs/common';
import { ConfigModule as NestConfigModule, ConfigService, Path, PathValue } from '@nestjs/config';
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
 * The validated configuration as `@nestjs/config` serves it, typed: `get('gateway.site',
 * { infer: true })` is a `SiteConfig`. Nothing falls back to `process.env`: the loader
 * (config-loader.ts) has read the variables and the file, and checked them.
 */
export type AppConfigService = ConfigService<AppConfig, true>;

/** A section of the configuration injectable by its class, read from the ConfigService. */
function section<P extends Path<AppConfig>>(
  token: abstract new () => PathValue<AppConfig, P>,
  path: P,
): Provider {
  return {
    provide: token,
    inject: [ConfigService],
    useFactory: (config: AppConfigService) => config.get(path, { infer: true }),
  };
}

/**
 * The sections services ask for: a service names exactly what it reads
 * (`constructor(private readonly site: SiteConfig)`), and gets it from the ConfigService.
 */
const SECTIONS: Provider[] = [
  section(GatewayConfig, 'gateway'),
  section(SiteConfig, 'gateway.site'),
  section(MeteringConfig, 'gateway.metering'),
  section(S3Config, 'gateway.s3'),
  section(KeyBalanceConfig, 'gateway.key_balance'),
  section(ChainConfig, 'chain'),
  section(StorageConfig, 'storage'),
  section(LocalnetConfig, 'localnet'),
];

/**
 * Validated configuration, once: `loadConfig` (YAML file, then environment; every check of
 * config-loader.ts) fails before any module starts, and `@nestjs/config` holds the result. The
 * one `@Global` module: the ConfigService and every section are injectable everywhere.
 */
@Global()
@Module({})
export class ConfigModule {
  static forRoot(config: AppConfig = loadConfig()): DynamicModule {
    return {
      module: ConfigModule,
      imports: [
        NestConfigModule.forRoot({
          isGlobal: true,
          ignoreEnvFile: true,
          skipProcessEnv: true,
          load: [() => ({ ...config })],
        }),
      ],
      providers: SECTIONS,
      exports: SECTIONS,
    };
  }
}
