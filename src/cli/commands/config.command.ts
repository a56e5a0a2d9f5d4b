import { Command, CommandRunner } from 'nest-commander';
import { ConfigGetCommand } from './config-get.command';
import { ConfigSetCommand } from './config-set.command';

/** `tape config set|get`: settings kept in config.json of the config directory. */
@Command({
  name: 'config',
  description:
    'read and change CLI settings (url, gateway, keypair, site_domain, active_tape, program_id)',
  subCommands: [ConfigSetCommand, ConfigGetCommand],
})
export class ConfigCommand extends CommandRunner {
  async run(): Promise<void> {
    this.command.help({ error: true });
  }
}
