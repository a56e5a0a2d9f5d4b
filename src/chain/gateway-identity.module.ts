import { Module } from '@nestjs/common';
import { ChainConfig } from '../config/chain.config';
import { StorageConfig } from '../config/storage.config';
import { GatewayIdentity } from './gateway-identity';

/**
 * The gateway's own key and role (writer or reader), without any RPC: the data plane asks for
 * the role (a reader never writes to the store) without opening a connection to the chain.
 */
@Module({
  providers: [
    {
      provide: GatewayIdentity,
      useFactory: (c: ChainConfig, s: StorageConfig) => GatewayIdentity.load(c, s),
      inject: [ChainConfig, StorageConfig],
    },
  ],
  exports: [GatewayIdentity],
})
export class GatewayIdentityModule {}
