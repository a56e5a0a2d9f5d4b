import { Global, Module, OnModuleInit } from '@nestjs/common';
import { ChainConfig } from '../config/chain.config';
import { StorageConfig } from '../config/storage.config';
import { HealthRegistry } from '../health/health-registry';
import { ChainService } from './chain.service';
import { GatewayIdentity } from './gateway-identity';

/** The chain for the gateway: ChainService plus the gateway's own key. */
@Global()
@Module({
  providers: [
    {
      provide: ChainService,
      useFactory: (c: ChainConfig) => new ChainService(c),
      inject: [ChainConfig],
    },
    {
      provide: GatewayIdentity,
      useFactory: (c: ChainConfig, s: StorageConfig) => GatewayIdentity.load(c, s),
      inject: [ChainConfig, StorageConfig],
    },
  ],
  exports: [ChainService, GatewayIdentity],
})
export class ChainModule implements OnModuleInit {
  constructor(
    private readonly chain: ChainService,
    private readonly health: HealthRegistry,
  ) {}

  onModuleInit(): void {
    this.health.register('chain', () => this.chain.ping());
  }
}
