import { Command, CommandRunner } from 'nest-commander';
import { AliasRmCommand } from './alias-rm.command';

/** `tape alias rm`: a group; alone it shows its help. */
@Command({
  name: 'alias',
  description: 'manage the aliases (preview names) of a tape: tape versions lists them',
  subCommands: [AliasRmCommand],
})
export class AliasCommand extends CommandRunner {
  async run(): Promise<void> {
    this.command.help({ error: true });
  }
}
