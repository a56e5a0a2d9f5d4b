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

  /**
   * A public cluster's faucet (devnet, testnet): `requestAirdrop`, then the signature's status
   * polled over HTTP until it is confirmed (no WebSocket needed), for at most `timeoutMs`.
   * Those faucets rate-limit and cap each request; their refusal comes back as a ChainError.
   */
  async requestClusterAirdrop(
    owner: PublicKey,
    lamports: number,
    timeoutMs = 60_000,
    pollMs = 500,
  ): Promise<string> {
    const signature = await this.rpc.call((c) => c.requestAirdrop(owner, lamports));
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const { value } = await this.rpc.call((c) => c.getSignatureStatuses([signature]));
      const status = value[0];
      if (status?.err) {
        throw new ChainError(
          'transaction',
          `the airdrop ${signature} failed: ${JSON.stringify(status.err)}`,
        );
      }
      if (
        status?.confirmationStatus === 'confirmed' ||
        status?.confirmationStatus === 'finalized'
      ) {
        return signature;
      }
      if (Date.now() >= deadline) {
        throw new ChainError(
          'timeout',
          `the airdrop ${signature} was not confirmed within ${Math.round(timeoutMs / 1000)} s (${this.rpc.url})`,
        );
      }
      await new Promise((resolve) => setTimeout(resolve, pollMs));
    }
  }

  private async confirm(signature: string): Promise<void> {
    await this.rpc.call((c) => c.confirmTransaction(signature, this.rpc.commitment));
  }
}
