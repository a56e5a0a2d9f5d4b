import { Injectable } from '@nestjs/common';
import { GatewayClient } from '../deploy/gateway-client';
import { CliTarget } from './cli-target';

/** The gateway client of the CLI's services: the upload API of the target's gateway URL. */
@Injectable()
export class CliGateway {
  constructor(private readonly target: CliTarget) {}

  /** A client of `TAPE_GATEWAY` (else the config key `gateway`, else the local gateway). */
  client(): GatewayClient {
    return new GatewayClient(this.target.gatewayUrl);
  }
}
