import { Injectable, Module } from '@nestjs/common';
import { AppConfig } from './app-config';
import { loadConfig } from './config-loader';

/**
 * The gateway's configuration (config-loader.ts: YAML file and `TAPE…` environment, validated),
 * read on first use rather than at start-up. A root that only sometimes needs it (the CLI, where
 * `tape gateway …` does and `tape create` must work without any gateway configuration) asks for
 * this; a ConfigError is thrown to the caller that asked, every time it asks.
 */
@Injectable()
export class LazyAppConfig {
  private config?: AppConfig;

  get(): AppConfig {
    this.config ??= loadConfig(process.env);
    return this.config;
  }
}

/** LazyAppConfig, one per process: the CLI's counterpart of `ConfigModule.forRoot()`. */
@Module({ providers: [LazyAppConfig], exports: [LazyAppConfig] })
export class LazyConfigModule {}
