import { Command } from 'nest-commander';
import { CommandContext } from '../session/command-context';
import { GlobalOptions } from '../session/cli-target';
import { TapeHistoryService } from '../versions/tape-history.service';
import { parseAliasName } from './alias-name';
import { printHistoryChange } from './history-change-output';
import { TapeCommand } from './tape-command';

@Command({
  name: 'promote',
  arguments: '<alias>',
  argsDescription: { alias: 'the alias whose version becomes current (tape deploy --alias)' },
  description: "make an alias's version the live one, in one transaction",
})
export class PromoteCommand extends TapeCommand {
  constructor(
    ctx: CommandContext,
    private readonly history: TapeHistoryService,
  ) {
    super(ctx);
  }

  async run([alias]: string[], options: GlobalOptions = {}): Promise<void> {
    const target = this.start(options);
    const name = parseAliasName(alias);
    const change = await this.history.promote(name);
    printHistoryChange(this.printer, target, change, { alias: name });
  }
}
