import { PublicKey } from '@solana/web3.js';
import { ASSOCIATED_TOKEN_PROGRAM_ID, TOKEN_PROGRAM_ID } from './program-ids';

/** Program-derived addresses of the tape program (docs/program.md, "Accounts"). */
export class TapePdas {
  constructor(readonly programId: PublicKey) {}

  config(): PublicKey {
    return this.find([Buffer.from('config')]);
  }

  /** A tape lives at `["tape", authority]`: the tape keypair's public key is its authority. */
  tape(authority: PublicKey): PublicKey {
    return this.find([Buffer.from('tape'), authority.toBuffer()]);
  }

  private find(seeds: Buffer[]): PublicKey {
    return PublicKey.findProgramAddressSync(seeds, this.programId)[0];
  }
}

/** The SPL associated token account of `owner` for `mint`. */
export function associatedTokenAddress(owner: PublicKey, mint: PublicKey): PublicKey {
  return PublicKey.findProgramAddressSync(
    [owner.toBuffer(), TOKEN_PROGRAM_ID.toBuffer(), mint.toBuffer()],
    ASSOCIATED_TOKEN_PROGRAM_ID,
  )[0];
}
