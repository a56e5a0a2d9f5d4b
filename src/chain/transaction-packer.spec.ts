import {
  ComputeBudgetInstruction,
  ComputeBudgetProgram,
  Keypair,
  PublicKey,
  Transaction,
  TransactionInstruction,
} from '@solana/web3.js';
import { createHash } from 'node:crypto';
import {
  COMPUTE_UNITS,
  ComputeUnitEstimator,
  DEFAULT_INSTRUCTION_COMPUTE_UNITS,
  MAX_TRANSACTION_COMPUTE_UNITS,
} from './compute-units';
import { randomInstruction, seeded } from './random-instructions.spec-support';
import { TapeInstructions } from './tape-instructions';
import { Tag } from './tape-instruction-data';
import {
  PACKET_DATA_SIZE,
  PackedTransaction,
  packInstructions,
  PackOptions,
  transactionSize,
  withComputeBudget,
} from './transaction-packer';

const programId = new PublicKey('Tape111111111111111111111111111111111111111');
const ix = new TapeInstructions(programId);
const payer = Keypair.generate();
const authority = Keypair.generate();
const tape = ix.pdas.tape(authority.publicKey);
const packing: PackOptions = { computeUnits: new ComputeUnitEstimator(programId) };
const LIMIT_UNITS = COMPUTE_UNITS.computeBudget;

/** A tape-program instruction (Publish's tag) of any data length, signed by payer and authority. */
function tapeIx(i: number, dataLength = 40) {
  const data = Buffer.alloc(dataLength, i & 0xff);
  data[0] = Tag.Publish;
  return new TransactionInstruction({
    programId,
    keys: [
      { pubkey: payer.publicKey, isSigner: true, isWritable: true },
      { pubkey: authority.publicKey, isSigner: true, isWritable: false },
      { pubkey: tape, isSigner: false, isWritable: true },
      { pubkey: ix.pdas.config(), isSigner: false, isWritable: false },
      {
        pubkey: new PublicKey(createHash('sha256').update(String(i)).digest()),
        isSigner: false,
        isWritable: true,
      },
    ],
    data,
  });
}

function delegate(i: number) {
  return ix.setDelegate({
    authority: authority.publicKey,
    delegate: new PublicKey(createHash('sha256').update(`delegate ${i}`).digest()),
  });
}

function signedSize(instructions: TransactionInstruction[]): number {
  const tx = new Transaction({
    feePayer: payer.publicKey,
    blockhash: PublicKey.default.toBase58(),
    lastValidBlockHeight: 0,
  });
  tx.add(...instructions);
  tx.sign(payer, authority);
  return tx.serialize().length;
}

/**
 * Each transaction within the packet limit, its computed size the signed one's, and full: the
 * next transaction's first instruction would not have fit.
 */
function expectFullWithExactSizes(packed: PackedTransaction[]): void {
  for (const [i, t] of packed.entries()) {
    const size = transactionSize(t.transactionInstructions, payer.publicKey);
    expect(size).toBeLessThanOrEqual(PACKET_DATA_SIZE);
    expect(signedSize(t.transactionInstructions)).toBe(size);
    if (i < packed.length - 1) {
      const next = packed[i + 1].instructions[0];
      expect(
        transactionSize([...t.transactionInstructions, next], payer.publicKey),
      ).toBeGreaterThan(PACKET_DATA_SIZE);
    }
  }
}

/** Packing with Publish estimated at `units` (no per-byte part), other estimates as shipped. */
function publishEstimatedAt(units: number): PackOptions {
  return {
    computeUnits: new ComputeUnitEstimator(programId, {
      ...COMPUTE_UNITS,
      tape: { ...COMPUTE_UNITS.tape, [Tag.Publish]: units },
      tapePerDataByte: {},
    }),
  };
}

function limitOf(packed: PackedTransaction): number {
  const [first] = packed.transactionInstructions;
  expect(ComputeBudgetInstruction.decodeInstructionType(first)).toBe('SetComputeUnitLimit');
  return ComputeBudgetInstruction.decodeSetComputeUnitLimit(first).units;
}

describe('packInstructions', () => {
  it('fills transactions up to the 1232-byte limit, in order, compute-budget instruction included, with exact sizes', () => {
    const instructions = Array.from({ length: 40 }, (_, i) => tapeIx(i));
    const packed = packInstructions(instructions, payer.publicKey, packing);
    expect(packed.flatMap((t) => t.instructions)).toEqual(instructions);
    expect(packed.length).toBeGreaterThan(1);
    for (const t of packed) {
      expect(t.transactionInstructions).toEqual([expect.anything(), ...t.instructions]);
    }
    expectFullWithExactSizes(packed);
  });

  it("sets each transaction's compute-unit limit to the sum of its instructions' estimates", () => {
    const instructions = [delegate(1), tapeIx(1), delegate(2)];
    const [packed] = packInstructions(instructions, payer.publicKey, packing);
    const expected =
      LIMIT_UNITS + instructions.reduce((sum, i) => sum + packing.computeUnits.estimate(i), 0);
    expect(packed.computeUnitLimit).toBe(expected);
    expect(limitOf(packed)).toBe(expected);
  });

  it('never puts more than 1.4 M compute units of estimates in one transaction', () => {
    const heavy = publishEstimatedAt(500_000);
    const instructions = Array.from({ length: 7 }, (_, i) => tapeIx(i, 20));
    // By size alone they share one transaction.
    expect(packInstructions(instructions, payer.publicKey, packing)).toHaveLength(1);
    const packed = packInstructions(instructions, payer.publicKey, heavy);
    expect(packed.map((t) => t.instructions.length)).toEqual([2, 2, 2, 1]);
    expect(packed.map(limitOf)).toEqual([
      LIMIT_UNITS + 1_000_000,
      LIMIT_UNITS + 1_000_000,
      LIMIT_UNITS + 1_000_000,
      LIMIT_UNITS + 500_000,
    ]);
    expect(packed.flatMap((t) => t.instructions)).toEqual(instructions);
  });

  it('sends an instruction estimated over 1.4 M alone, with the limit capped', () => {
    const huge = publishEstimatedAt(2_000_000);
    const packed = packInstructions([delegate(1), tapeIx(1), delegate(2)], payer.publicKey, huge);
    expect(packed.map((t) => t.instructions.length)).toEqual([1, 1, 1]);
    expect(packed.map(limitOf)).toEqual([
      LIMIT_UNITS + COMPUTE_UNITS.tape[Tag.SetDelegate],
      MAX_TRANSACTION_COMPUTE_UNITS,
      LIMIT_UNITS + COMPUTE_UNITS.tape[Tag.SetDelegate],
    ]);
  });

  it('adds SetComputeUnitPrice when a price is given, and counts its bytes and units', () => {
    const priced: PackOptions = { ...packing, computeUnitPrice: 25_000 };
    const instructions = Array.from({ length: 40 }, (_, i) => tapeIx(i, 30));
    const packed = packInstructions(instructions, payer.publicKey, priced);
    expect(packed.flatMap((t) => t.instructions)).toEqual(instructions);
    expectFullWithExactSizes(packed);
    for (const t of packed) {
      const price = t.transactionInstructions[1];
      expect(ComputeBudgetInstruction.decodeInstructionType(price)).toBe('SetComputeUnitPrice');
      expect(ComputeBudgetInstruction.decodeSetComputeUnitPrice(price).microLamports).toBe(25_000n);
      expect(limitOf(t)).toBe(
        2 * LIMIT_UNITS +
          t.instructions.reduce((sum, i) => sum + packing.computeUnits.estimate(i), 0),
      );
    }
    // Without a price there is no price instruction.
    for (const t of packInstructions(instructions, payer.publicKey, packing)) {
      expect(
        t.transactionInstructions.filter((i) => i.programId.equals(ComputeBudgetProgram.programId)),
      ).toHaveLength(1);
    }
  });

  it('packs exactly like greedy packing by compiled size and summed estimates', () => {
    const rng = seeded(42);
    const shared = Array.from({ length: 20 }, () => Keypair.generate().publicKey);
    const instructions = Array.from({ length: 300 }, () => randomInstruction(shared, rng));
    for (const options of [packing, { ...packing, computeUnitPrice: 1n }]) {
      const packed = packInstructions(instructions, payer.publicKey, options);
      const reference = packByCompiling(instructions, payer.publicKey, options);
      expect(packed.map((t) => t.instructions.length)).toEqual(reference.map((b) => b.length));
      expect(packed.flatMap((t) => t.instructions)).toEqual(instructions);
    }
  });

  it('refuses an instruction that cannot fit any transaction', () => {
    const huge = tapeIx(1, 1_300);
    expect(() => packInstructions([delegate(1), huge], payer.publicKey, packing)).toThrow(
      /over the 1232-byte transaction limit/,
    );
  });
});

describe('withComputeBudget', () => {
  it('refuses compute-budget instructions from the caller (Solana refuses a second one)', () => {
    const own = ComputeBudgetProgram.setComputeUnitLimit({ units: 1 });
    expect(() => withComputeBudget([own, tapeIx(1)], packing)).toThrow(/added by the packer/);
  });

  it('gives instructions of unknown programs what Solana gives them without a limit', () => {
    const other = new TransactionInstruction({
      programId: Keypair.generate().publicKey,
      keys: [],
      data: Buffer.from([Tag.Publish]),
    });
    expect(withComputeBudget([other], packing).computeUnitLimit).toBe(
      LIMIT_UNITS + DEFAULT_INSTRUCTION_COMPUTE_UNITS,
    );
  });
});

/** The slow oracle: greedy packing that compiles every candidate transaction. */
function packByCompiling(
  instructions: TransactionInstruction[],
  feePayer: PublicKey,
  options: PackOptions,
): TransactionInstruction[][] {
  const budget = [ComputeBudgetProgram.setComputeUnitLimit({ units: 0 })];
  if (options.computeUnitPrice !== undefined) {
    budget.push(ComputeBudgetProgram.setComputeUnitPrice({ microLamports: 0 }));
  }
  const units = (list: TransactionInstruction[]) =>
    list.reduce((sum, i) => sum + options.computeUnits.estimate(i), 0);
  const batches: TransactionInstruction[][] = [];
  let current: TransactionInstruction[] = [];
  for (const next of instructions) {
    const candidate = [...budget, ...current, next];
    if (
      current.length < 64 &&
      transactionSize(candidate, feePayer) <= PACKET_DATA_SIZE &&
      units(candidate) <= MAX_TRANSACTION_COMPUTE_UNITS
    ) {
      current.push(next);
    } else {
      batches.push(current);
      current = [next];
    }
  }
  if (current.length > 0) batches.push(current);
  return batches;
}
