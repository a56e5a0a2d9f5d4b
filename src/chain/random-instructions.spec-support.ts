import { Keypair, PublicKey, TransactionInstruction } from '@solana/web3.js';
import { randomBytes } from 'node:crypto';
import { DEFAULT_TAPE_PROGRAM_ID } from './program-ids';
import { TapeInstructions } from './tape-instructions';

const ix = new TapeInstructions(DEFAULT_TAPE_PROGRAM_ID);
export const payer = Keypair.generate().publicKey;
const signer = Keypair.generate().publicKey;
const tape = Keypair.generate().publicKey;

/**
 * Publish, SetDelegate, or an arbitrary instruction of any length up to 300 bytes (repeated
 * keys, extra signers, the tape program or another one).
 */
export function randomInstruction(shared: PublicKey[], rng: () => number): TransactionInstruction {
  const kind = Math.floor(rng() * 4);
  if (kind === 0) {
    return ix.publish({
      signer,
      storageAuthority: payer,
      tape,
      expectedSequence: Math.floor(rng() * 10),
      root: randomBytes(32),
      versionBytes: 10,
      keptBytes: 10,
    });
  }
  if (kind === 1) {
    return ix.setDelegate({
      authority: signer,
      delegate: shared[Math.floor(rng() * shared.length)],
    });
  }
  const keys = Array.from({ length: 1 + Math.floor(rng() * 5) }, () => ({
    pubkey: shared[Math.floor(rng() * shared.length)],
    isSigner: rng() < 0.2,
    isWritable: rng() < 0.5,
  }));
  return new TransactionInstruction({
    programId: rng() < 0.5 ? DEFAULT_TAPE_PROGRAM_ID : shared[0],
    keys,
    data: randomBytes(Math.floor(rng() * 300)),
  });
}

export function seeded(seed: number): () => number {
  let s = seed;
  return () => (s = (s * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
}
