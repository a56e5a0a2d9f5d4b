import { Command, Option } from 'nest-commander';
import { storageCost } from '../../chain/storage-pricing';
import { transactionFee } from '../../chain/priority-fee';
import { CliError } from '../cli-error';
import { parseDuration, parseEpochs } from '../input/duration-parser';
import { expiredMessage } from '../output/expiry-notice';
import { keyValueLines } from '../output/key-value-lines';
import { epochStart, epochsValue, expiresValue } from '../output/tape-lines';
import { formatTokens, isoTime } from '../output/units';
import { GlobalOptions } from '../session/tape-session';
import { assertOneReservation, epochsToAdd, ReservationOptions } from './reservation-options';
import { assertWalletCanPay } from './payment-check';
import { TapeCommand } from './tape-command';

interface ExtendOptions extends GlobalOptions, ReservationOptions {}

@Command({ name: 'extend', description: 'add epochs to the tape (before it expires)' })
export class ExtendCommand extends TapeCommand {
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
    const session = this.session(options);
    const tape = await session.loadTape();
    const { reader, writer, ix } = session.chain;
    const wallet = session.wallet();
    const [config, now, currentEpoch] = await Promise.all([
      reader.networkConfig(),
      reader.chainTime(),
      reader.currentEpoch(),
    ]);
    if (currentEpoch >= tape.record.expiryEpoch) {
      throw new CliError(expiredMessage(tape.address, tape.record, config, now));
    }
    const epochs = epochsToAdd(options, config);
    const tokens = storageCost(tape.record.capacity, epochs, config.pricePerMibEpoch);
    const extend = ix.extendTape({
      payer: wallet.publicKey,
      tape: tape.address,
      mint: config.mint,
      treasury: config.treasury,
      epochs,
    });
    await assertWalletCanPay(
      reader,
      wallet.publicKey,
      tokens,
      transactionFee([extend], 1, writer.packing),
      'extending the tape',
    );
    await session.guarded(writer.send([extend], [wallet]));
    const after = (await reader.getTape(tape.address)) ?? {
      ...tape.record,
      expiryEpoch: tape.record.expiryEpoch + epochs,
    };
    if (session.json) {
      this.printer.json({
        tape: tape.address.toBase58(),
        added_epochs: epochs,
        active_epoch: after.activeEpoch,
        expiry_epoch: after.expiryEpoch,
        expires_at: isoTime(epochStart(after.expiryEpoch, config)),
        cost: { tokens, storage_tokens: formatTokens(tokens) },
      });
      return;
    }
    this.printer.lines(
      keyValueLines([
        ['tape address', tape.address.toBase58()],
        ['added', `${epochs} ${epochs === 1 ? 'epoch' : 'epochs'}`],
        ['epochs', epochsValue(after.activeEpoch, after.expiryEpoch)],
        ['expires', expiresValue(after.expiryEpoch, config, now)],
        ['cost', `${formatTokens(tokens)} storage tokens`],
      ]),
    );
  }
}
