import { Injectable } from '@nestjs/common';
import { toChainError } from '../../chain/chain-error';
import { ChainFaucet } from '../../chain/chain-faucet';
import { ChainReader } from '../../chain/chain-reader';
import { ChainRpc } from '../../chain/chain-rpc';
import { ChainServices } from '../../chain/chain.module';
import { ChainWriter } from '../../chain/chain-writer';
import { OnDemandChain } from '../../chain/on-demand-chain.module';
import { StorageCosts } from '../../chain/storage-costs';
import { TapeInstructions } from '../../chain/tape-instructions';
import { CliError } from '../cli-error';
import { Printer } from '../output/printer';
import { withChainWatchdog } from './chain-watchdog';
import { CliTarget, Invocation } from './cli-target';
import { LoadedTape } from './loaded-tape';

/**
 * The chain client of the CLI's services: ChainModule's services (RPC, reader, writer, faucet,
 * instructions, costs) for the invocation's target (CliTarget: `-u`, `--program-id`,
 * `--with-compute-unit-price`), connected on first use, one Connection per command
 * (OnDemandChain), plus the reads and guards every command shares.
 */
@Injectable()
export class CliChain {
  private connected?: { invocation: Invocation; services: ChainServices };

  constructor(
    private readonly target: CliTarget,
    private readonly onDemand: OnDemandChain,
    /** Where a one-line note for a human goes (stderr): which fallback RPC URL is used. */
    private readonly printer: Printer,
  ) {}

  /** The chain services for the target's `chainConfig()`. */
  get services(): ChainServices {
    const invocation = this.target.started;
    if (this.connected?.invocation !== invocation) {
      // A fallback is named once, like the Solana CLI's keypair: the chain is not the one asked for.
      const url = invocation.rpcUrlSetting;
      if (url.source === 'solana-cli') {
        this.printer.note(`using the Solana CLI's RPC URL ${invocation.rpcUrl} (${url.origin})`);
      }
      this.connected = { invocation, services: this.onDemand.connect(this.target.chainConfig()) };
    }
    return this.connected.services;
  }

  get rpc(): ChainRpc {
    return this.services.rpc;
  }

  get reader(): ChainReader {
    return this.services.reader;
  }

  get writer(): ChainWriter {
    return this.services.writer;
  }

  get faucet(): ChainFaucet {
    return this.services.faucet;
  }

  get ix(): TapeInstructions {
    return this.services.ix;
  }

  get costs(): StorageCosts {
    return this.services.costs;
  }

  /** The target's tape (`--tape`, else the active one) as the chain holds it. */
  async loadTape(): Promise<LoadedTape> {
    const address = this.target.tapeAddress();
    const record = await this.reader.getTape(address);
    if (!record) {
      throw new CliError(`no tape ${address.toBase58()} on ${this.target.rpcUrl}`);
    }
    return { address, record };
  }

  /** Work that sends transactions, failing fast (with the URL) if the RPC goes away meanwhile. */
  guarded<T>(work: Promise<T>): Promise<T> {
    return withChainWatchdog(() => this.rpc.ping(), work);
  }

  /**
   * Work against the cluster (`tape network …`), guarded, failing as one line: a CliError as
   * it is, anything else as the chain error it is (with the RPC URL).
   */
  onCluster<T>(work: Promise<T>): Promise<T> {
    return this.guarded(work).catch((err: unknown) => {
      throw err instanceof CliError ? err : toChainError(err, this.target.rpcUrl);
    });
  }
}
