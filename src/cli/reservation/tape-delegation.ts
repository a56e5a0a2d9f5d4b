import { Injectable } from '@nestjs/common';
import { PublicKey } from '@solana/web3.js';
import { PaidSender } from '../funding/paid-sender';
import { CliChain } from '../session/cli-chain';
import { CliSigners } from '../session/cli-signers';

/**
 * `tape delegate`: names the key (a gateway's) that may write to the tape beside its own
 * keypair, or none. Only the tape's own keypair may choose its delegate (a delegate cannot
 * appoint another).
 */
@Injectable()
export class TapeDelegation {
  constructor(
    private readonly chain: CliChain,
    private readonly signers: CliSigners,
    private readonly sender: PaidSender,
  ) {}

  /** Sets the delegate (null: revokes it); returns the tape's address. */
  async set(delegate: PublicKey | null): Promise<PublicKey> {
    const tape = await this.chain.loadTape();
    const authority = this.signers.tapeSigner(tape, true);
    const ix = this.chain.ix.setDelegate({ authority: authority.publicKey, delegate });
    await this.sender.send([ix], { cosigners: [authority], what: 'changing the delegate' });
    return tape.address;
  }
}
