import { Command, Option } from 'nest-commander';
import { CliError } from '../cli-error';
import { parseSize } from '../input/size-parser';
import { keyValueLines } from '../output/key-value-lines';
import { formatBytes, formatTokens } from '../output/units';
import { GlobalOptions } from '../session/cli-target';
import { ReservationCommand } from './reservation-command';

interface ResizeOptions extends GlobalOptions {
  add?: number;
}

@Command({
  name: 'resize',
  description: "grow the tape's capacity (paid for the epochs it has left)",
})
export class ResizeCommand extends ReservationCommand {
  @Option({ flags: '--add <size>', description: 'capacity to add: bytes, or 512k, 100m, 1g' })
  parseAdd(value: string): number {
    return parseSize(value, 'size');
  }

  async run(_args: string[], options: ResizeOptions = {}): Promise<void> {
    if (options.add === undefined)
      throw new CliError('resize: --add <size> is required (e.g. --add 100m)');
    const target = this.start(options);
    const { address, addedBytes, capacity, used, tokens } = await this.reservations.resize(
      options.add,
    );
    if (target.json) {
      this.printer.json({
        tape: address.toBase58(),
        added: addedBytes,
        capacity,
        used,
        cost: { tokens, storage_tokens: formatTokens(tokens) },
      });
      return;
    }
    this.printer.lines(
      keyValueLines([
        ['tape address', address.toBase58()],
        ['added', `${addedBytes} bytes (${formatBytes(addedBytes)})`],
        ['capacity', `${capacity} bytes (${formatBytes(capacity)})`],
        ['cost', `${formatTokens(tokens)} storage tokens`],
      ]),
    );
  }
}
