import { Command, Option } from 'nest-commander';
import { transactionFee } from '../../chain/priority-fee';
import { resizeCost } from '../../chain/storage-pricing';
import { CliError } from '../cli-error';
import { expiredMessage } from '../output/expiry-notice';
import { parseSize } from '../input/size-parser';
import { keyValueLines } from '../output/key-value-lines';
import { formatBytes, formatTokens } from '../output/units';
import { GlobalOptions } from '../session/tape-session';
import { assertWalletCanPay } from './payment-check';
import { TapeCommand } from './tape-command';

interface ResizeOptions extends GlobalOptions {
  add?: number;
}

@Command({
  name: 'resize',
  description: "grow the tape's capacity (paid for the epochs it has left)",
})
export class ResizeCommand extends TapeCommand {
  @Option({ flags: '--add <size>', description: 'capacity to add: bytes, or 512k, 100m, 1g' })
  parseAdd(value: string): number {
    return parseSize(value, 'size');
  }

  async run(_args: string[], options: ResizeOptions = {}): Promise<void> {
    if (options.add === undefined)
      throw new CliError('resize: --add <size> is required (e.g. --add 100m)');
    const add = options.add;
    const session = this.session(options);
    const tape = await session.loadTape();
    const { reader, writer, ix } = session.chain;
    const wallet = session.wallet();
    const [config, currentEpoch] = await Promise.all([
      reader.networkConfig(),
      reader.currentEpoch(),
    ]);
    if (currentEpoch >= tape.record.expiryEpoch) {
      const now = await reader.chainTime();
      throw new CliError(expiredMessage(tape.address, tape.record, config, now));
    }
    if (tape.record.capacity + add > Number.MAX_SAFE_INTEGER)
      throw new CliError('resize: capacity would be too large');
    const tokens = resizeCost(
      tape.record.capacity,
      add,
      tape.record.expiryEpoch - currentEpoch,
      config.pricePerMibEpoch,
    );
    const resize = ix.resizeTape({
      payer: wallet.publicKey,
      tape: tape.address,
      mint: config.mint,
      treasury: config.treasury,
      addBytes: add,
    });
    await assertWalletCanPay(
      reader,
      wallet.publicKey,
      tokens,
      transactionFee([resize], 1, writer.packing),
      'resizing the tape',
    );
    await session.guarded(writer.send([resize], [wallet]));
    const capacity = (await reader.getTape(tape.address))?.capacity ?? tape.record.capacity + add;
    if (session.json) {
      this.printer.json({
        tape: tape.address.toBase58(),
        added: add,
        capacity,
        used: tape.record.keptBytes,
        cost: { tokens, storage_tokens: formatTokens(tokens) },
      });
      return;
    }
    this.printer.lines(
      keyValueLines([
        ['tape address', tape.address.toBase58()],
        ['added', `${add} bytes (${formatBytes(add)})`],
        ['capacity', `${capacity} bytes (${formatBytes(capacity)})`],
        ['cost', `${formatTokens(tokens)} storage tokens`],
      ]),
    );
  }
}
