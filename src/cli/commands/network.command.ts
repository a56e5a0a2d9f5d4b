import { Command, CommandRunner } from 'nest-commander';
import { NetworkDeployCommand } from './network-deploy.command';
import { NetworkFundCommand } from './network-fund.command';
import { NetworkInitCommand } from './network-init.command';
import { NetworkStatusCommand } from './network-status.command';
import { NetworkMintCommand } from './network-mint.command';

/** `tape network deploy|init|status`: operator commands that set up a cluster; alone it shows its help. */
@Command({
  name: 'network',
  description: 'set up a cluster for tapes: deploy the tape program, then initialise it',
  subCommands: [
    NetworkDeployCommand,
    NetworkInitCommand,
    NetworkStatusCommand,
    NetworkFundCommand,
    NetworkMintCommand,
  ],
})
export class NetworkCommand extends CommandRunner {
  async run(): Promise<void> {
    this.command.help({ error: true });
  }
}
