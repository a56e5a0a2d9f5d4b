import { Keypair, PublicKey, TransactionInstruction } from '@solana/web3.js';
import { randomBytes } from 'node:crypto';
import { PACKET_DATA_SIZE, transactionSize } from './transaction-packer';
import { TapeInstructions } from './tape-instructions';
import { DEFAULT_TAPE_PROGRAM_ID } from './program-ids';
import { TrackKind } from './account-layouts';
import { packFast, TransactionBudget } from './transaction-budget';

const ix = new TapeInstructions(DEFAULT_TAPE_PROGRAM_ID);
const payer = Keypair.generate().publicKey;
const signer = Keypair.generate().publicKey;
const tape = Keypair.generate().publicKey;

function randomInstruction(shared: PublicKey[], rng: () => number): TransactionInstruction {
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
  // Arbitrary instructions: repeated keys, extra signers, another program.
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

function seeded(seed: number): () => number {
  let s = seed;
  return () => (s = (s * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
}

describe('TransactionBudget', () => {
  it('computes the serialized size exactly, as compiling the message does', () => {
    const rng = seeded(7);
    const shared = Array.from({ length: 6 }, () => Keypair.generate().publicKey);
    for (let round = 0; round < 60; round++) {
      const budget = new TransactionBudget(payer);
      const added: TransactionInstruction[] = [];
      for (let i = 0; i < 8; i++) {
        const next = randomInstruction(shared, rng);
        const expected = transactionSize([...added, next], payer);
        if (expected > 1232) break;
        expect(budget.sizeIf(next)).toBe(expected);
        budget.add(next);
        added.push(next);
        expect(budget.size()).toBe(expected);
      }
    }
  });

  it('packs exactly like greedy packing by compiled size', () => {
    const rng = seeded(42);
    const shared = Array.from({ length: 20 }, () => Keypair.generate().publicKey);
    const instructions = Array.from({ length: 300 }, () => randomInstruction(shared, rng));
    const fast = packFast(instructions, payer);
    const reference = packByCompiling(instructions, payer);
    expect(fast.map((b) => b.length)).toEqual(reference.map((b) => b.length));
    expect(fast.flat()).toEqual(instructions);
  });

  it('refuses an instruction that cannot fit a transaction alone', () => {
    const huge = new TransactionInstruction({
      programId: DEFAULT_TAPE_PROGRAM_ID,
      keys: [],
      data: Buffer.alloc(1300),
    });
    expect(() => packFast([huge], payer)).toThrow(/over the 1232-byte transaction limit/);
  });
});

/** The slow oracle: greedy packing that compiles every candidate transaction. */
function packByCompiling(instructions: TransactionInstruction[], payer: PublicKey) {
  const batches: TransactionInstruction[][] = [];
  let current: TransactionInstruction[] = [];
  for (const ix of instructions) {
    if (current.length < 64 && transactionSize([...current, ix], payer) <= PACKET_DATA_SIZE) {
      current.push(ix);
    } else {
      batches.push(current);
      current = [ix];
    }
  }
  if (current.length > 0) batches.push(current);
  return batches;
}
