import { Module } from '@nestjs/common';
import { MeteringConfig } from '../config/metering.config';
import { ClientIpResolver } from './client-ip';

/**
 * Who the client of a request is (the trusted proxies and the forwarding header of
 * `gateway.metering`), for every reader of it: metering, the access log, uploads.
 */
@Module({
  providers: [
    {
      provide: ClientIpResolver,
      useFactory: (config: MeteringConfig) => ClientIpResolver.fromConfig(config),
      inject: [MeteringConfig],
    },
  ],
  exports: [ClientIpResolver],
})
export class ClientIpModule {}
