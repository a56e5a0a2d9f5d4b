import { PublicKey } from '@solana/web3.js';
import { ChainError } from './chain-error';
import { ChainRpc } from './chain-rpc';

/** JSON-RPC "method not found": the node has no such faucet. */
const METHOD_NOT_FOUND = -32601;

/**
 * The local network's faucets: SOL (`requestAirdrop`) and storage tokens
 * (`tape_requestStorageTokens`, a method of the local network only). Each request is confirmed
 * before it resolves. Real clusters refuse or rate-limit them; mainnet has neither.
 */
export class ChainFaucet {
  constructor(private readonly rpc: ChainRpc) {}

  async requestAirdrop(owner: PublicKey, lamports: number): Promise<string> {
    const signature = await this.rpc.call((c) => c.requestAirdrop(owner, lamports));
    await this.confirm(signature);
    return signature;
  }

  async requestStorageTokens(owner: PublicKey, amount: bigint): Promise<string> {
    const res = await this.rpc.raw('tape_requestStorageTokens', [
      owner.toBase58(),
      amount.toString(),
    ]);
    if (res.error) {
      throw new ChainError(
        'rpc',
        res.error.code === METHOD_NOT_FOUND
          ? `the storage-token faucet exists only on a local network (${this.rpc.url})`
          : res.error.message,
      );
    }
    const signature = res.result as string;
    await this.confirm(signature);
    return signature;
  }

  private async confirm(signature: string): Promise<void> {
    await this.rpc.call((c) => c.confirmTransaction(signature, this.rpc.commitment));
  }
}
