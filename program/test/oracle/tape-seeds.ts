import { PublicKey } from '@solana/web3.js';
import { TOKEN_PROGRAM_ID } from '../../../src/chain/program-ids';

/** Seeds of the tape program's accounts (docs/program.md, "Accounts"); same as `TapePdas`. */
export const TapeSeeds = {
  config: (): Buffer[] => [Buffer.from('config')],
  tape: (authority: PublicKey): Buffer[] => [Buffer.from('tape'), authority.toBuffer()],
  /** Seeds of an associated token account, under the Associated Token program. */
  associatedToken: (owner: PublicKey, mint: PublicKey): Buffer[] => [
    owner.toBuffer(),
    TOKEN_PROGRAM_ID.toBuffer(),
    mint.toBuffer(),
  ],
};
