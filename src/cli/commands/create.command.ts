import { Command, Option } from 'nest-commander';
import { CliError } from '../cli-error';
import { Funds } from '../funding/payment-check';
import { parseDuration, parseEpochs } from '../input/duration-parser';
import { parseSize } from '../input/size-parser';
import { keyValueLines } from '../output/key-value-lines';
import { epochDurationValue, epochStart, epochsValue, expiresValue } from '../output/tape-lines';
import { formatBytes, formatSol, formatSolApprox, formatTokens, isoTime } from '../output/units';
import { assertOneReservation, ReservationOptions } from '../reservation/reservation-options';
import { assertCanPayCreate, CreatedTape, CreateQuote } from '../reservation/tape-reservations';
import { GlobalOptions } from '../session/cli-target';
import { ReservationCommand } from './reservation-command';

interface CreateOptions extends GlobalOptions, ReservationOptions {
  capacity?: number;
  dryRun?: boolean;
}

@Command({
  name: 'create',
  description: 'reserve a tape: capacity for a number of epochs, paid in storage tokens',
})
export class CreateCommand extends ReservationCommand {
  @Option({ flags: '--capacity <size>', description: 'capacity: bytes, or 512k, 100m (MiB), 1g' })
  parseCapacity(value: string): number {
    return parseSize(value, 'capacity');
  }

  @Option({
    flags: '--duration <time>',
    description: 'buy enough epochs to last this long: 90m, 2h, 30d',
  })
  parseDuration(value: string): number {
    return parseDuration(value);
  }

  @Option({
    flags: '--epochs <n>',
    description: 'buy exactly this many epochs (instead of --duration)',
  })
  parseEpochs(value: string): number {
    return parseEpochs(value);
  }

  @Option({
    flags: '--dry-run',
    description: 'show the cost and the wallet balance; reserve nothing',
  })
  parseDryRun(): boolean {
    return true;
  }

  async run(_args: string[], options: CreateOptions = {}): Promise<void> {
    if (options.capacity === undefined) {
      throw new CliError('create: --capacity <size> is required (e.g. --capacity 100m)');
    }
    assertOneReservation(options, 'create');
    const target = this.start(options);
    const quote = await this.reservations.quoteCreate(options.capacity, options);
    if (options.dryRun) {
      this.printDryRun(target.json, quote);
      assertCanPayCreate(quote);
      return;
    }
    const created = await this.reservations.create(quote);
    this.printCreated(target.json, quote, created);
  }

  private printDryRun(json: boolean, quote: CreateQuote): void {
    const { capacity, config, cost, balance } = quote;
    const active = quote.activeEpoch;
    const expiry = active + quote.epochs;
    if (json) {
      this.printer.json({
        dry_run: true,
        capacity,
        active_epoch: active,
        expiry_epoch: expiry,
        epoch_duration_secs: config.epochDurationSecs,
        expires_at: isoTime(epochStart(expiry, config)),
        cost: costJson(cost),
        wallet_balance: {
          wallet: quote.payer.publicKey.toBase58(),
          lamports: balance.lamports,
          tokens: balance.tokens,
        },
        can_pay: quote.canPay,
      });
      return;
    }
    this.printer.lines([
      ...keyValueLines([
        ['capacity', `${capacity} bytes (${formatBytes(capacity)})`],
        ['epochs', epochsValue(active, expiry)],
        ['epoch duration', epochDurationValue(config)],
        ['expires', expiresValue(expiry, config, quote.now)],
        ['cost', costText(cost)],
        [
          'wallet balance',
          `${formatTokens(balance.tokens)} storage tokens, ${formatSol(balance.lamports)} SOL`,
        ],
      ]),
      'dry run: nothing was reserved',
    ]);
  }

  private printCreated(json: boolean, quote: CreateQuote, created: CreatedTape): void {
    const { capacity, config } = quote;
    const { address, label, keypairPath, activeEpoch, expiryEpoch } = created;
    if (json) {
      this.printer.json({
        tape: address.toBase58(),
        label,
        capacity,
        active_epoch: activeEpoch,
        expiry_epoch: expiryEpoch,
        epoch_duration_secs: config.epochDurationSecs,
        expires_at: isoTime(epochStart(expiryEpoch, config)),
        cost: costJson(quote.cost),
        keypair: keypairPath,
      });
      return;
    }
    this.printer.lines(
      keyValueLines([
        ['tape address', address.toBase58()],
        ['label', label],
        ['capacity', `${capacity} bytes (${formatBytes(capacity)})`],
        ['epochs', epochsValue(activeEpoch, expiryEpoch)],
        ['epoch duration', epochDurationValue(config)],
        ['expires', expiresValue(expiryEpoch, config, quote.now)],
        ['cost', costText(quote.cost)],
      ]),
    );
    this.printer.note(
      `The tape keypair is saved as ${keypairPath}: it is the only key that can write to this tape. Keep it.`,
    );
  }
}

function costText(cost: Funds): string {
  return `${formatTokens(cost.tokens)} storage tokens + ~${formatSolApprox(cost.lamports)} SOL`;
}

function costJson(cost: Funds) {
  return {
    tokens: cost.tokens,
    storage_tokens: formatTokens(cost.tokens),
    lamports_estimate: cost.lamports,
  };
}
