import { SubCommand } from 'nest-commander';
import { CommandContext } from '../session/command-context';
import { GlobalOptions } from '../session/cli-target';
import { TapeHistoryService } from '../versions/tape-history.service';
import { parseAliasName } from './alias-name';
import { printHistoryChange } from './history-change-output';
import { TapeCommand } from './tape-command';

@SubCommand({
  name: 'rm',
  arguments: '<alias>',
  argsDescription: { alias: 'the alias to remove' },
  description:
    'remove an alias: its URL stops answering; its version goes unless current, aliased again or among the newest kept',
})
export class AliasRmCommand extends TapeCommand {
  constructor(
    ctx: CommandContext,
    private readonly history: TapeHistoryService,
  ) {
    super(ctx);
  }

  async run([alias]: string[], options: GlobalOptions = {}): Promise<void> {
    const target = this.start(options);
    const name = parseAliasName(alias);
    const change = await this.history.removeAlias(name);
    printHistoryChange(this.printer, target, change, { removed: name });
  }
}
