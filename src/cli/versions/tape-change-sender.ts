import { Injectable } from '@nestjs/common';
import { Keypair, TransactionInstruction } from '@solana/web3.js';
import { transactionFee } from '../../chain/priority-fee';
import { assertWalletCanPay } from '../funding/payment-check';
import { CliChain } from '../session/cli-chain';
import { CliSigners } from '../session/cli-signers';

/**
 * One instruction that changes a tape, signed by the tape's signer and paid by the wallet:
 * the fee checked before anything is signed, then sent under the RPC watchdog. `tape
 * delegate`, `rollback`, `promote`, `alias rm` and `keep` send their change through it.
 */
@Injectable()
export class TapeChangeSender {
  constructor(
    private readonly chain: CliChain,
    private readonly signers: CliSigners,
  ) {}

  /** Sends `ix`; `what` names the change in a refusal for lack of SOL. Returns the signature. */
  async send(ix: TransactionInstruction, signer: Keypair, what: string): Promise<string> {
    const { reader, writer } = this.chain;
    const payer = this.signers.wallet();
    const signers = signer.publicKey.equals(payer.publicKey) ? [payer] : [payer, signer];
    await assertWalletCanPay(
      reader,
      payer.publicKey,
      0n,
      transactionFee([ix], signers.length, writer.packing),
      what,
    );
    const [signature] = await this.chain.guarded(writer.send([ix], signers));
    return signature;
  }
}
