import { Injectable } from '@nestjs/common';
import { Keypair, TransactionInstruction } from '@solana/web3.js';
import { transactionFee } from '../../chain/priority-fee';
import { CliChain } from '../session/cli-chain';
import { CliSigners } from '../session/cli-signers';
import { assertWalletCanPay } from './payment-check';

/** What a paid transaction costs beyond its fee, and who else signs it. */
export interface Payment {
  /** Names the action in a refusal for lack of funds: `extending the tape`, `this change`. */
  what: string;
  /** Storage tokens the instructions move out of the wallet (none by default). */
  tokens?: bigint;
  /** Keys that sign beside the wallet (a tape's keypair); the wallet itself is not signed twice. */
  cosigners?: Keypair[];
}

/**
 * One transaction paid by the wallet: its fee (signatures and priority fee, as the writer packs
 * it) and `tokens` checked against the wallet's balance before anything is signed, then sent
 * under the RPC watchdog. `tape extend`, `resize`, `delegate`, `rollback`, `promote`,
 * `alias rm` and `keep` send through it.
 */
@Injectable()
export class PaidSender {
  constructor(
    private readonly chain: CliChain,
    private readonly signers: CliSigners,
  ) {}

  /** Sends `instructions` in one transaction; returns its signature. */
  async send(instructions: TransactionInstruction[], payment: Payment): Promise<string> {
    const { reader, writer } = this.chain;
    const payer = this.signers.wallet();
    const others = (payment.cosigners ?? []).filter((k) => !k.publicKey.equals(payer.publicKey));
    const signers = [payer, ...others];
    const fee = transactionFee(instructions, signers.length, writer.packing);
    await assertWalletCanPay(reader, payer.publicKey, payment.tokens ?? 0n, fee, payment.what);
    const [signature] = await this.chain.guarded(writer.send(instructions, signers));
    return signature;
  }
}
