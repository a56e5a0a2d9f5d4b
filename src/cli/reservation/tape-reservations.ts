import { Injectable } from '@nestjs/common';
import { Keypair, PublicKey, TransactionInstruction } from '@solana/web3.js';
import { NetworkConfig } from '../../chain/account-layouts';
import { priorityFeeLamports } from '../../chain/priority-fee';
import { resizeCost, storageCost } from '../../chain/storage-pricing';
import { labelFromAddress } from '../../chain/tape-label';
import { withComputeBudget } from '../../chain/transaction-packer';
import { CliError } from '../cli-error';
import { PaidSender } from '../funding/paid-sender';
import { covers, Funds, insufficientFunds } from '../funding/payment-check';
import { expiredMessage } from '../output/expiry-notice';
import { CliChain } from '../session/cli-chain';
import { CliConfigStore } from '../session/cli-config-store';
import { CliSigners } from '../session/cli-signers';
import { LoadedTape } from '../session/loaded-tape';
import { epochsForNewTape, epochsToAdd, ReservationOptions } from './reservation-options';

/** The network's terms when the command ran: for the epochs and expiry a command prints. */
export interface ChainTerms {
  config: NetworkConfig;
  /** Chain time (unix seconds). */
  now: number;
}

/** A new tape, priced and built, not yet signed: what `create --dry-run` shows. */
export interface CreateQuote extends ChainTerms {
  capacity: number;
  epochs: number;
  /** The epoch the tape would start in; it expires at `activeEpoch + epochs`. */
  activeEpoch: number;
  /** Storage tokens (exact) and lamports (rent, fees and priority fee, estimated). */
  cost: Funds;
  payer: Keypair;
  balance: Funds;
  canPay: boolean;
  tapeKeypair: Keypair;
  instruction: TransactionInstruction;
}

export interface CreatedTape {
  address: PublicKey;
  label: string;
  /** Where the tape's keypair was saved: the only key that can write to the tape. */
  keypairPath: string;
  activeEpoch: number;
  expiryEpoch: number;
}

export interface ExtendedTape extends ChainTerms {
  address: PublicKey;
  addedEpochs: number;
  tokens: bigint;
  activeEpoch: number;
  expiryEpoch: number;
}

export interface ResizedTape {
  address: PublicKey;
  addedBytes: number;
  capacity: number;
  /** Bytes the tape's kept versions hold. */
  used: number;
  tokens: bigint;
}

/**
 * `tape create`, `extend` and `resize`: one flow for what a reservation costs and how it is
 * paid. Quote (the network's price, the wallet's balance), check the funds before anything is
 * signed, build the instruction, sign and send it (failing fast if the RPC goes away), save what
 * must outlive the process, and read back what the chain now holds. Commands parse their options
 * and print what these return.
 */
@Injectable()
export class TapeReservations {
  constructor(
    private readonly chain: CliChain,
    private readonly signers: CliSigners,
    private readonly store: CliConfigStore,
    private readonly sender: PaidSender,
  ) {}

  /** A new tape of `capacity` bytes for `--epochs`, or enough epochs to cover `--duration`. */
  async quoteCreate(capacity: number, reservation: ReservationOptions): Promise<CreateQuote> {
    const payer = this.signers.wallet();
    const { reader, writer, costs, ix } = this.chain;
    const { config, now, currentEpoch } = await reader.clock();
    const epochs = epochsForNewTape(reservation, now, currentEpoch, config);
    const [base, balance] = await Promise.all([
      costs.estimateCreate(capacity, epochs),
      reader.getBalances(payer.publicKey),
    ]);
    const tapeKeypair = Keypair.generate();
    const instruction = ix.createTape({
      payer: payer.publicKey,
      authority: tapeKeypair.publicKey,
      mint: config.mint,
      treasury: config.treasury,
      capacity,
      epochs,
    });
    // The priority fee (--with-compute-unit-price) on top of the signatures' fees.
    const { computeUnitLimit } = withComputeBudget([instruction], writer.packing);
    const cost = {
      tokens: base.tokens,
      lamports:
        base.lamports + priorityFeeLamports(writer.packing.computeUnitPrice, computeUnitLimit),
    };
    return {
      config,
      now,
      capacity,
      epochs,
      activeEpoch: base.currentEpoch,
      cost,
      payer,
      balance,
      canPay: covers(balance, cost),
      tapeKeypair,
      instruction,
    };
  }

  /** Reserves the quoted tape and makes it the active one. */
  async create(quote: CreateQuote): Promise<CreatedTape> {
    // Checked before anything is signed: a create that cannot be paid never reaches the chain.
    assertCanPayCreate(quote);
    const { reader, writer, ix } = this.chain;
    const address = ix.pdas.tape(quote.tapeKeypair.publicKey);
    // Saved before sending: if the process dies after the transaction lands, the key survives.
    const keypairPath = this.store.saveTapeKeypair(address.toBase58(), quote.tapeKeypair);
    await this.chain.guarded(writer.send([quote.instruction], [quote.payer, quote.tapeKeypair]));
    this.store.set('active_tape', address.toBase58());
    const record = await reader.getTape(address);
    const activeEpoch = record?.activeEpoch ?? quote.activeEpoch;
    return {
      address,
      label: labelFromAddress(address),
      keypairPath,
      activeEpoch,
      expiryEpoch: record?.expiryEpoch ?? activeEpoch + quote.epochs,
    };
  }

  /** Adds `--epochs`, or enough epochs to lengthen the reservation by `--duration`. */
  async extend(reservation: ReservationOptions): Promise<ExtendedTape> {
    const tape = await this.chain.loadTape();
    const { reader, ix } = this.chain;
    const payer = this.signers.wallet();
    const { config, now, currentEpoch } = await reader.clock();
    await this.assertActive(tape, config, currentEpoch, now);
    const epochs = epochsToAdd(reservation, config);
    const tokens = storageCost(tape.record.capacity, epochs, config.pricePerMibEpoch);
    const extend = ix.extendTape({
      payer: payer.publicKey,
      tape: tape.address,
      mint: config.mint,
      treasury: config.treasury,
      epochs,
    });
    await this.sender.send([extend], { tokens, what: 'extending the tape' });
    const after = (await reader.getTape(tape.address)) ?? {
      ...tape.record,
      expiryEpoch: tape.record.expiryEpoch + epochs,
    };
    return {
      config,
      now,
      address: tape.address,
      addedEpochs: epochs,
      tokens,
      activeEpoch: after.activeEpoch,
      expiryEpoch: after.expiryEpoch,
    };
  }

  /** Adds `bytes` of capacity, paid for the epochs the tape has left. */
  async resize(bytes: number): Promise<ResizedTape> {
    const tape = await this.chain.loadTape();
    const { reader, ix } = this.chain;
    const payer = this.signers.wallet();
    const [config, currentEpoch] = await Promise.all([
      reader.networkConfig(),
      reader.currentEpoch(),
    ]);
    await this.assertActive(tape, config, currentEpoch);
    if (tape.record.capacity + bytes > Number.MAX_SAFE_INTEGER) {
      throw new CliError('resize: capacity would be too large');
    }
    const tokens = resizeCost(
      tape.record.capacity,
      bytes,
      tape.record.expiryEpoch - currentEpoch,
      config.pricePerMibEpoch,
    );
    const resize = ix.resizeTape({
      payer: payer.publicKey,
      tape: tape.address,
      mint: config.mint,
      treasury: config.treasury,
      addBytes: bytes,
    });
    await this.sender.send([resize], { tokens, what: 'resizing the tape' });
    const capacity = (await reader.getTape(tape.address))?.capacity ?? tape.record.capacity + bytes;
    return {
      address: tape.address,
      addedBytes: bytes,
      capacity,
      used: tape.record.keptBytes,
      tokens,
    };
  }

  /** An expired tape takes no more payments: it says when it expired instead. */
  private async assertActive(
    tape: LoadedTape,
    config: NetworkConfig,
    currentEpoch: number,
    now?: number,
  ): Promise<void> {
    if (currentEpoch < tape.record.expiryEpoch) return;
    const at = now ?? (await this.chain.reader.chainTime());
    throw new CliError(expiredMessage(tape.address, tape.record, config, at));
  }
}

/** The quoted tape is more than the wallet holds: one line saying both, and what to do. */
export function assertCanPayCreate(quote: CreateQuote): void {
  if (quote.canPay) return;
  throw insufficientFunds('this tape', quote.payer.publicKey, quote.cost, quote.balance, {
    alwaysTokens: true,
    alternative: ', or reserve less',
  });
}
