import { Keypair } from '@solana/web3.js';
import { Command, Option } from 'nest-commander';
import { priorityFeeLamports } from '../../chain/priority-fee';
import { labelFromAddress } from '../../chain/tape-label';
import { withComputeBudget } from '../../chain/transaction-packer';
import { CliError } from '../cli-error';
import { parseDuration, parseEpochs } from '../input/duration-parser';
import { parseSize } from '../input/size-parser';
import { keyValueLines } from '../output/key-value-lines';
import { epochDurationValue, epochStart, epochsValue, expiresValue } from '../output/tape-lines';
import { formatBytes, formatSol, formatSolApprox, formatTokens, isoTime } from '../output/units';
import { GlobalOptions } from '../session/tape-session';
import { assertOneReservation, epochsForNewTape, ReservationOptions } from './reservation-options';
import { TapeCommand } from './tape-command';

interface CreateOptions extends GlobalOptions, ReservationOptions {
  capacity?: number;
  dryRun?: boolean;
}

@Command({
  name: 'create',
  description: 'reserve a tape: capacity for a number of epochs, paid in storage tokens',
})
export class CreateCommand extends TapeCommand {
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
    const capacity = options.capacity;
    const session = this.session(options);
    const wallet = session.wallet();
    const { reader, writer, costs, ix } = session.chain;
    const [config, now, currentEpoch] = await Promise.all([
      reader.networkConfig(),
      reader.chainTime(),
      reader.currentEpoch(),
    ]);
    const epochs = epochsForNewTape(options, now, currentEpoch, config);
    const [base, balance] = await Promise.all([
      costs.estimateCreate(capacity, epochs),
      reader.getBalances(wallet.publicKey),
    ]);
    const tapeKeypair = Keypair.generate();
    const create = ix.createTape({
      payer: wallet.publicKey,
      authority: tapeKeypair.publicKey,
      mint: config.mint,
      treasury: config.treasury,
      capacity,
      epochs,
    });
    // The priority fee (--with-compute-unit-price) on top of the signatures' fees.
    const { computeUnitLimit } = withComputeBudget([create], writer.packing);
    const estimate = {
      ...base,
      lamports:
        base.lamports + priorityFeeLamports(writer.packing.computeUnitPrice, computeUnitLimit),
    };
    const cost = `${formatTokens(estimate.tokens)} storage tokens + ~${formatSolApprox(estimate.lamports)} SOL`;
    const canPay = balance.tokens >= estimate.tokens && balance.lamports >= estimate.lamports;
    const cannotPay = new CliError(
      `insufficient funds: this tape costs ${formatTokens(estimate.tokens)} storage tokens and about ${formatSolApprox(estimate.lamports)} SOL; ` +
        `wallet ${wallet.publicKey.toBase58()} has ${formatTokens(balance.tokens)} storage tokens and ${formatSol(balance.lamports)} SOL ` +
        '(fix: fund the wallet, e.g. tape airdrop on a local network, or reserve less)',
    );

    if (options.dryRun) {
      const active = estimate.currentEpoch;
      const expiry = active + epochs;
      if (session.json) {
        this.printer.json({
          dry_run: true,
          capacity,
          active_epoch: active,
          expiry_epoch: expiry,
          epoch_duration_secs: config.epochDurationSecs,
          expires_at: isoTime(epochStart(expiry, config)),
          cost: {
            tokens: estimate.tokens,
            storage_tokens: formatTokens(estimate.tokens),
            lamports_estimate: estimate.lamports,
          },
          wallet_balance: {
            wallet: wallet.publicKey.toBase58(),
            lamports: balance.lamports,
            tokens: balance.tokens,
          },
          can_pay: canPay,
        });
      } else {
        this.printer.lines([
          ...keyValueLines([
            ['capacity', `${capacity} bytes (${formatBytes(capacity)})`],
            ['epochs', epochsValue(active, expiry)],
            ['epoch duration', epochDurationValue(config)],
            ['expires', expiresValue(expiry, config, now)],
            ['cost', cost],
            [
              'wallet balance',
              `${formatTokens(balance.tokens)} storage tokens, ${formatSol(balance.lamports)} SOL`,
            ],
          ]),
          'dry run: nothing was reserved',
        ]);
      }
      if (!canPay) throw cannotPay;
      return;
    }

    // Checked before anything is signed: a create that cannot be paid never reaches the chain.
    if (!canPay) throw cannotPay;
    const address = ix.pdas.tape(tapeKeypair.publicKey);
    // Saved before sending: if the process dies after the transaction lands, the key survives.
    const keypairPath = session.store.saveTapeKeypair(address.toBase58(), tapeKeypair);
    await session.guarded(writer.send([create], [wallet, tapeKeypair]));
    session.store.set('active_tape', address.toBase58());
    const record = await reader.getTape(address);
    const active = record?.activeEpoch ?? estimate.currentEpoch;
    const expiry = record?.expiryEpoch ?? active + epochs;
    const label = labelFromAddress(address);
    if (session.json) {
      this.printer.json({
        tape: address.toBase58(),
        label,
        capacity,
        active_epoch: active,
        expiry_epoch: expiry,
        epoch_duration_secs: config.epochDurationSecs,
        expires_at: isoTime(epochStart(expiry, config)),
        cost: {
          tokens: estimate.tokens,
          storage_tokens: formatTokens(estimate.tokens),
          lamports_estimate: estimate.lamports,
        },
        keypair: keypairPath,
      });
      return;
    }
    this.printer.lines(
      keyValueLines([
        ['tape address', address.toBase58()],
        ['label', label],
        ['capacity', `${capacity} bytes (${formatBytes(capacity)})`],
        ['epochs', epochsValue(active, expiry)],
        ['epoch duration', epochDurationValue(config)],
        ['expires', expiresValue(expiry, config, now)],
        ['cost', cost],
      ]),
    );
    this.printer.note(
      `The tape keypair is saved as ${keypairPath}: it is the only key that can write to this tape. Keep it.`,
    );
  }
}
