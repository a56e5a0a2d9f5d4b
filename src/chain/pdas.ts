import { PublicKey } from '@solana/web3.js';
import { createHash } from 'node:crypto';
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

  /** Tracks are content-addressed within a tape: `["track", tape, commitment]`. */
  track(tape: PublicKey, commitment: Uint8Array): PublicKey {
    return this.find([Buffer.from('track'), tape.toBuffer(), Buffer.from(commitment)]);
  }

  /** Names can be longer than a seed (32 bytes), so the seed is SHA-256 of the UTF-8 name. */
  name(tape: PublicKey, name: string): PublicKey {
    return this.find([Buffer.from('name'), tape.toBuffer(), nameSeed(name)]);
  }

  private find(seeds: Buffer[]): PublicKey {
    return PublicKey.findProgramAddressSync(seeds, this.programId)[0];
  }
}

export function nameSeed(name: string): Buffer {
  return createHash('sha256').update(name, 'utf8').digest();
}

/** The SPL associated token account of `owner` for `mint`. */
export function associatedTokenAddress(owner: PublicKey, mint: PublicKey): PublicKey {
  return PublicKey.findProgramAddressSync(
    [owner.toBuffer(), TOKEN_PROGRAM_ID.toBuffer(), mint.toBuffer()],
    ASSOCIATED_TOKEN_PROGRAM_ID,
  )[0];
}
