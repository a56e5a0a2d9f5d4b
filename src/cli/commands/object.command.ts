import { Command, CommandRunner } from 'nest-commander';
import { ObjectLsCommand } from './object-ls.command';
import { ObjectRmCommand } from './object-rm.command';

/** `tape object ls|rm`: a group; alone it shows its help. */
@Command({
  name: 'object',
  description: 'list and remove the named objects of a tape',
  subCommands: [ObjectLsCommand, ObjectRmCommand],
})
export class ObjectCommand extends CommandRunner {
  async run(): Promise<void> {
    this.command.help({ error: true });
  }
}
