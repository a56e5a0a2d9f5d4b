import { Injectable } from '@nestjs/common';
import { PublicKey } from '@solana/web3.js';
import { CliError } from '../cli-error';
import { Printer } from '../output/printer';
import { CliChain } from '../session/cli-chain';
import { CliSigners } from '../session/cli-signers';
import { CliTarget } from '../session/cli-target';
import { InitResult, NetworkInitializer } from './network-initializer';

/** `tape network init`'s options, parsed. */
export interface NetworkInitOptions {
  mint?: PublicKey;
  /** Storage-token base units per MiB per epoch. */
  price?: bigint;
  epochDuration?: number;
  storageAuthority?: PublicKey;
}

export interface NetworkInitialization {
  result: InitResult;
  /** Lamports the payer spent: rent and fees. */
  spent: number;
}

/**
 * `tape network init` for one invocation: NetworkInitializer on the invocation's chain, paid
 * by the wallet, with progress on stderr, and what the run cost.
 */
@Injectable()
export class NetworkInitializations {
  constructor(
    private readonly initializer: NetworkInitializer,
    private readonly printer: Printer,
    private readonly target: CliTarget,
    private readonly chain: CliChain,
    private readonly signers: CliSigners,
  ) {}

  async init(options: NetworkInitOptions): Promise<NetworkInitialization> {
    const payer = this.signers.wallet();
    const rpc = this.chain.rpc.connection;
    const work = async (): Promise<NetworkInitialization> => {
      const before = await rpc.getBalance(payer.publicKey);
      const result = await this.initializer.init({
        rpc,
        rpcUrl: this.target.rpcUrl,
        ix: this.chain.ix,
        payer,
        mint: options.mint,
        price: options.price,
        epochDurationSecs: options.epochDuration,
        storageAuthority: options.storageAuthority,
        computeUnitPrice: this.target.computeUnitPrice,
        progress: (line) => this.printer.note(line),
      });
      return { result, spent: before - (await rpc.getBalance(payer.publicKey)) };
    };
    return this.chain.onCluster(work());
  }
}

/** A Config is never overwritten: asked-for values it does not have fail the command (after it reports). */
export function assertConfigAsAsked(result: InitResult): void {
  if (result.differences.length === 0) return;
  throw new CliError(
    `the Config of ${result.programId.toBase58()} already exists with other values: ${result.differences.join('; ')} (a Config is never overwritten)`,
  );
}
