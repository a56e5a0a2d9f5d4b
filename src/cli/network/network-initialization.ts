import { Injectable } from '@nestjs/common';
import { PublicKey } from '@solana/web3.js';
import { CliError } from '../cli-error';
import { Printer } from '../output/printer';
import { InitResult, NetworkInitializer } from './network-initializer';
import { NetworkSession, onCluster } from './network-session';

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
  ) {}

  async init(session: NetworkSession, options: NetworkInitOptions): Promise<NetworkInitialization> {
    const payer = session.wallet();
    const rpc = session.chain.rpc.connection;
    const work = async (): Promise<NetworkInitialization> => {
      const before = await rpc.getBalance(payer.publicKey);
      const result = await this.initializer.init({
        rpc,
        rpcUrl: session.rpcUrl,
        ix: session.chain.ix,
        payer,
        mint: options.mint,
        price: options.price,
        epochDurationSecs: options.epochDuration,
        storageAuthority: options.storageAuthority,
        computeUnitPrice: session.computeUnitPrice,
        progress: (line) => this.printer.note(line),
      });
      return { result, spent: before - (await rpc.getBalance(payer.publicKey)) };
    };
    return onCluster(session, work());
  }
}

/** A Config is never overwritten: asked-for values it does not have fail the command (after it reports). */
export function assertConfigAsAsked(result: InitResult): void {
  if (result.differences.length === 0) return;
  throw new CliError(
    `the Config of ${result.programId.toBase58()} already exists with other values: ${result.differences.join('; ')} (a Config is never overwritten)`,
  );
}
