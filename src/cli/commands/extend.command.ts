import { Command, Option } from 'nest-commander';
import { parseDuration, parseEpochs } from '../input/duration-parser';
import { keyValueLines } from '../output/key-value-lines';
import { epochStart, epochsValue, expiresValue } from '../output/tape-lines';
import { formatTokens, isoTime } from '../output/units';
import { assertOneReservation, ReservationOptions } from '../reservation/reservation-options';
import { GlobalOptions } from '../session/cli-target';
import { ReservationCommand } from './reservation-command';

interface ExtendOptions extends GlobalOptions, ReservationOptions {}

@Command({ name: 'extend', description: 'add epochs to the tape (before it expires)' })
export class ExtendCommand extends ReservationCommand {
  @Option({
    flags: '--duration <time>',
    description: 'lengthen the reservation by this much: 2h, 30d',
  })
  parseDuration(value: string): number {
    return parseDuration(value);
  }

  @Option({
    flags: '--epochs <n>',
    description: 'add exactly this many epochs (instead of --duration)',
  })
  parseEpochs(value: string): number {
    return parseEpochs(value);
  }

  async run(_args: string[], options: ExtendOptions = {}): Promise<void> {
    assertOneReservation(options, 'extend');
    const target = this.start(options);
    const extended = await this.reservations.extend(options);
    const { address, addedEpochs, tokens, activeEpoch, expiryEpoch, config, now } = extended;
    if (target.json) {
      this.printer.json({
        tape: address.toBase58(),
        added_epochs: addedEpochs,
        active_epoch: activeEpoch,
        expiry_epoch: expiryEpoch,
        expires_at: isoTime(epochStart(expiryEpoch, config)),
        cost: { tokens, storage_tokens: formatTokens(tokens) },
      });
      return;
    }
    this.printer.lines(
      keyValueLines([
        ['tape address', address.toBase58()],
        ['added', `${addedEpochs} ${addedEpochs === 1 ? 'epoch' : 'epochs'}`],
        ['epochs', epochsValue(activeEpoch, expiryEpoch)],
        ['expires', expiresValue(expiryEpoch, config, now)],
        ['cost', `${formatTokens(tokens)} storage tokens`],
      ]),
    );
  }
}
