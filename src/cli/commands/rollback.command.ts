import { Command, Option } from 'nest-commander';
import { CliError } from '../cli-error';
import { printable } from '../input/size-parser';
import { CommandContext } from '../session/command-context';
import { GlobalOptions } from '../session/cli-target';
import { TapeHistoryService } from '../versions/tape-history.service';
import { printHistoryChange } from './history-change-output';
import { TapeCommand } from './tape-command';

interface RollbackOptions extends GlobalOptions {
  to?: number;
}

@Command({
  name: 'rollback',
  description:
    'make an older kept version current in one transaction, nothing uploaded (default: the newest kept version before the current one)',
})
export class RollbackCommand extends TapeCommand {
  constructor(
    ctx: CommandContext,
    private readonly history: TapeHistoryService,
  ) {
    super(ctx);
  }

  @Option({ flags: '--to <version>', description: 'the kept version to make current' })
  parseTo(value: string): number {
    return parseVersionNumber(value);
  }

  async run(_args: string[], options: RollbackOptions = {}): Promise<void> {
    const target = this.start(options);
    const change = await this.history.rollback(options.to);
    printHistoryChange(this.printer, target, change);
  }
}

export function parseVersionNumber(value: string): number {
  const text = value.trim();
  const n = /^\d{1,15}$/.test(text) ? Number(text) : NaN;
  if (!(n >= 1)) {
    throw new CliError(
      `bad version '${printable(value)}': expected a version number (tape versions lists them)`,
    );
  }
  return n;
}
