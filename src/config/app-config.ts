import 'reflect-metadata';
import { Type } from 'class-transformer';
import { ValidateNested } from 'class-validator';
import { ChainConfig } from './chain.config';
import { KeyBalanceConfig } from './key-balance.config';
import { LocalnetConfig } from './localnet.config';
import { MeteringConfig } from './metering.config';
import { S3Config } from './s3.config';
import { ServerConfig } from './server.config';
import { SiteConfig } from './site.config';
import { StorageConfig } from './storage.config';

/** `gateway.*`: the HTTP service, its site mapping, metering and S3 listener. */
export class GatewayConfig extends ServerConfig {
  @ValidateNested()
  @Type(() => SiteConfig)
  site = new SiteConfig();

  @ValidateNested()
  @Type(() => MeteringConfig)
  metering = new MeteringConfig();

  @ValidateNested()
  @Type(() => S3Config)
  s3 = new S3Config();

  @ValidateNested()
  @Type(() => KeyBalanceConfig)
  key_balance = new KeyBalanceConfig();
}

/** The whole validated configuration: YAML file, then environment overrides. */
export class AppConfig {
  @ValidateNested()
  @Type(() => GatewayConfig)
  gateway = new GatewayConfig();

  @ValidateNested()
  @Type(() => ChainConfig)
  chain = new ChainConfig();

  @ValidateNested()
  @Type(() => StorageConfig)
  storage = new StorageConfig();

  @ValidateNested()
  @Type(() => LocalnetConfig)
  localnet = new LocalnetConfig();
}
