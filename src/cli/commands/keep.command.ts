import { Command } from 'nest-commander';
import { KEEP_MAX } from '../../chain/account-layouts';
import { CliError } from '../cli-error';
import { printable } from '../input/size-parser';
import { GlobalOptions } from '../session/cli-target';
import { HistoryChangeCommand } from './history-change-command';

@Command({
  name: 'keep',
  arguments: '<n>',
  argsDescription: { n: `how many of the newest versions the tape keeps, 1 to ${KEEP_MAX}` },
  description:
    'set how many of the newest versions the tape keeps for rollback (default 10); older ones go at once unless current or aliased',
})
export class KeepCommand extends HistoryChangeCommand {
  async run([n]: string[], options: GlobalOptions = {}): Promise<void> {
    const target = this.start(options);
    const keep = parseKeep(n);
    const change = await this.history.setKeep(keep);
    this.printChange(target, change, { keep });
  }
}

function parseKeep(value: string | undefined): number {
  const text = (value ?? '').trim();
  const n = /^\d{1,2}$/.test(text) ? Number(text) : NaN;
  if (!(n >= 1 && n <= KEEP_MAX)) {
    throw new CliError(
      `bad keep '${printable(value ?? '')}': expected a whole number from 1 to ${KEEP_MAX}`,
    );
  }
  return n;
}
