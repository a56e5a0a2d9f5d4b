import { SubCommand } from 'nest-commander';
import { GatewayIdentity } from '../../chain/gateway-identity';
import { CliError } from '../cli-error';
import { GatewayOperatorCommand, GatewayOptions } from './gateway-operator-command';

@SubCommand({
  name: 'key',
  description: "print the gateway's public key (tape owners run: tape delegate <key>)",
})
export class GatewayKeyCommand extends GatewayOperatorCommand {
  async run(_args: string[], options?: GatewayOptions): Promise<void> {
    const { json } = this.options(options);
    const config = this.gatewayConfig();
    let identity: GatewayIdentity;
    try {
      // Created on first use, as the gateway itself would at its first start.
      identity = GatewayIdentity.loadOrCreate(config.chain, config.storage);
    } catch (error) {
      throw new CliError(`cannot read the gateway key: ${(error as Error).message}`);
    }
    const key = identity.publicKey.toBase58();
    if (json) {
      this.printer.json({
        gateway_key: key,
        keypair_file: GatewayIdentity.keypairPath(config.chain, config.storage),
      });
      return;
    }
    this.printer.line(key);
  }
}
