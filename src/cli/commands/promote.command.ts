import { Command } from 'nest-commander';
import { GlobalOptions } from '../session/cli-target';
import { parseAliasName } from './alias-name';
import { HistoryChangeCommand } from './history-change-command';

@Command({
  name: 'promote',
  arguments: '<alias>',
  argsDescription: { alias: 'the alias whose version becomes current (tape deploy --alias)' },
  description: "make an alias's version the live one, in one transaction",
})
export class PromoteCommand extends HistoryChangeCommand {
  async run([alias]: string[], options: GlobalOptions = {}): Promise<void> {
    const target = this.start(options);
    const name = parseAliasName(alias);
    const change = await this.history.promote(name);
    this.printChange(target, change, { alias: name });
  }
}
