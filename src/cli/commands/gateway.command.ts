import { Command, CommandRunner } from 'nest-commander';
import { GatewayCredentialsCommand } from './gateway-credentials.command';
import { GatewayKeyCommand } from './gateway-key.command';

/** `tape gateway key|credentials`: operator commands; alone it shows its help. */
@Command({
  name: 'gateway',
  description: 'operate a gateway on this machine: its public key and its S3 credentials',
  subCommands: [GatewayKeyCommand, GatewayCredentialsCommand],
})
export class GatewayCommand extends CommandRunner {
  async run(): Promise<void> {
    this.command.help({ error: true });
  }
}
