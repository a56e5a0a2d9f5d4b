import { Command, Option } from 'nest-commander';
import { CliError } from '../cli-error';
import { printable } from '../input/size-parser';
import { GlobalOptions } from '../session/cli-target';
import { HistoryChangeCommand } from './history-change-command';

interface RollbackOptions extends GlobalOptions {
  to?: number;
}

@Command({
  name: 'rollback',
  description:
    'make an older kept version current in one transaction, nothing uploaded (default: the newest kept version before the current one)',
})
export class RollbackCommand extends HistoryChangeCommand {
  @Option({ flags: '--to <version>', description: 'the kept version to make current' })
  parseTo(value: string): number {
    return parseVersionNumber(value);
  }

  async run(_args: string[], options: RollbackOptions = {}): Promise<void> {
    const target = this.start(options);
    const change = await this.history.rollback(options.to);
    this.printChange(target, change);
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
