import { SubCommand } from 'nest-commander';
import { GlobalOptions } from '../session/cli-target';
import { parseAliasName } from './alias-name';
import { HistoryChangeCommand } from './history-change-command';

@SubCommand({
  name: 'rm',
  arguments: '<alias>',
  argsDescription: { alias: 'the alias to remove' },
  description:
    'remove an alias: its URL stops answering; its version goes unless current, aliased again or among the newest kept',
})
export class AliasRmCommand extends HistoryChangeCommand {
  async run([alias]: string[], options: GlobalOptions = {}): Promise<void> {
    const target = this.start(options);
    const name = parseAliasName(alias);
    const change = await this.history.removeAlias(name);
    this.printChange(target, change, { removed: name });
  }
}
