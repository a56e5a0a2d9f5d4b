import { PublicKey } from '@solana/web3.js';
import { ChainRpc } from '../chain-rpc';

/** Where a key's SOL balance is read (the chain; a test hands in a number it controls). */
export abstract class BalanceSource {
  abstract lamports(key: PublicKey): Promise<number>;
}

/** `getBalance` through the process's one RPC connection (fails as a ChainError). */
export class ChainBalanceSource extends BalanceSource {
  constructor(private readonly rpc: ChainRpc) {
    super();
  }

  lamports(key: PublicKey): Promise<number> {
    return this.rpc.call((c) => c.getBalance(key));
  }
}
