import { PublicKey } from '@solana/web3.js';
import { nameSeed } from '../../../src/chain/pdas';
import { TOKEN_PROGRAM_ID } from '../../../src/chain/program-ids';

/** Seeds of the tape program's accounts (docs/program.md, "Accounts"); same as `TapePdas`. */
export const TapeSeeds = {
  config: (): Buffer[] => [Buffer.from('config')],
  tape: (authority: PublicKey): Buffer[] => [Buffer.from('tape'), authority.toBuffer()],
  track: (tape: PublicKey, commitment: Buffer): Buffer[] => [
    Buffer.from('track'),
    tape.toBuffer(),
    commitment,
  ],
  name: (tape: PublicKey, name: string): Buffer[] => [
    Buffer.from('name'),
    tape.toBuffer(),
    nameSeed(name),
  ],
  /** Seeds of an associated token account, under the Associated Token program. */
  associatedToken: (owner: PublicKey, mint: PublicKey): Buffer[] => [
    owner.toBuffer(),
    TOKEN_PROGRAM_ID.toBuffer(),
    mint.toBuffer(),
  ],
};
