import { Keypair, PublicKey, TransactionInstruction } from '@solana/web3.js';
import { randomBytes } from 'node:crypto';
import { TrackKind } from './account-layouts';
import { DEFAULT_TAPE_PROGRAM_ID } from './program-ids';
import { TapeInstructions } from './tape-instructions';

const ix = new TapeInstructions(DEFAULT_TAPE_PROGRAM_ID);
export const payer = Keypair.generate().publicKey;
const signer = Keypair.generate().publicKey;
const tape = Keypair.generate().publicKey;

/** WriteTrack, SetName of any length, or an arbitrary instruction (repeated keys, extra signers, another program). */
export function randomInstruction(shared: PublicKey[], rng: () => number): TransactionInstruction {
  const kind = Math.floor(rng() * 4);
  if (kind === 0) {
    return ix.writeTrack({
      payer,
      signer,
      tape,
      commitment: randomBytes(32),
      size: 10,
      kind: TrackKind.Blob,
      contentType: 'text/html',
    });
  }
  if (kind === 1) {
    return ix.setName({
      payer,
      signer,
      tape,
      name: 'n'.repeat(1 + Math.floor(rng() * 300)),
      track: shared[Math.floor(rng() * shared.length)],
      contentType: 'text/css; charset=utf-8',
      previousTrack: rng() < 0.5 ? shared[Math.floor(rng() * shared.length)] : undefined,
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
    data: randomBytes(Math.floor(rng() * 200)),
  });
}

export function seeded(seed: number): () => number {
  let s = seed;
  return () => (s = (s * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
}
