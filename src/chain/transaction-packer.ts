import {
  ComputeBudgetProgram,
  PublicKey,
  Transaction,
  TransactionInstruction,
} from '@solana/web3.js';
import { ComputeUnitEstimator, MAX_TRANSACTION_COMPUTE_UNITS } from './compute-units';
import { PACKET_DATA_SIZE, TransactionBudget } from './transaction-budget';

export { PACKET_DATA_SIZE };

/**
 * How transactions are filled. Whoever groups instructions ahead of `ChainWriter.send` uses
 * the writer's `packing`, so that each group it makes is sent as one transaction.
 */
export interface PackOptions {
  /** Compute units per instruction: a transaction's limit is the sum. */
  computeUnits: ComputeUnitEstimator;
  /** Priority fee in micro-lamports per compute unit (SetComputeUnitPrice); none by default. */
  computeUnitPrice?: number | bigint;
  /** At most this many of the caller's instructions in one transaction (64 by default). */
  maxInstructions?: number;
}

export interface PackedTransaction {
  /** The caller's instructions this transaction carries, in order. */
  instructions: TransactionInstruction[];
  /** What the transaction holds: its compute-budget instructions, then `instructions`. */
  transactionInstructions: TransactionInstruction[];
  /** Its SetComputeUnitLimit. */
  computeUnitLimit: number;
}

/**
 * The instruction list of one transaction: SetComputeUnitLimit with the sum of the estimates
 * (its own included, capped at 1.4 M), SetComputeUnitPrice when a price is set, then
 * `instructions`. Every transaction ChainWriter sends is built here.
 */
export function withComputeBudget(
  instructions: TransactionInstruction[],
  options: PackOptions,
): PackedTransaction {
  for (const ix of instructions) {
    // Solana refuses a second SetComputeUnitLimit: callers must leave the budget to this.
    if (ix.programId.equals(ComputeBudgetProgram.programId)) {
      throw new RangeError('compute-budget instructions are added by the packer, not by callers');
    }
  }
  let units = 0;
  for (const ix of computeBudgetInstructions(0, options))
    units += options.computeUnits.estimate(ix);
  for (const ix of instructions) units += options.computeUnits.estimate(ix);
  const computeUnitLimit = Math.min(units, MAX_TRANSACTION_COMPUTE_UNITS);
  return {
    instructions,
    transactionInstructions: [
      ...computeBudgetInstructions(computeUnitLimit, options),
      ...instructions,
    ],
    computeUnitLimit,
  };
}

function computeBudgetInstructions(units: number, options: PackOptions): TransactionInstruction[] {
  const out = [ComputeBudgetProgram.setComputeUnitLimit({ units })];
  if (options.computeUnitPrice !== undefined) {
    out.push(ComputeBudgetProgram.setComputeUnitPrice({ microLamports: options.computeUnitPrice }));
  }
  return out;
}

/**
 * One transaction being filled: its exact size with the compute-budget instructions it will
 * carry (their size does not depend on the numbers in them), and the compute units it needs.
 */
export class TransactionFill {
  readonly instructions: TransactionInstruction[] = [];
  private readonly bytes: TransactionBudget;
  private units = 0;

  constructor(
    feePayer: PublicKey,
    private readonly options: PackOptions,
  ) {
    this.bytes = new TransactionBudget(feePayer);
    for (const ix of computeBudgetInstructions(0, options)) {
      this.bytes.add(ix);
      this.units += options.computeUnits.estimate(ix);
    }
  }

  /**
   * True when `ix` can join within the 1232 bytes, the instruction count and 1.4 M compute
   * units; an instruction alone over 1.4 M is accepted (its limit is capped).
   */
  accepts(ix: TransactionInstruction): boolean {
    if (this.instructions.length >= (this.options.maxInstructions ?? 64)) return false;
    if (this.bytes.sizeIf(ix) > PACKET_DATA_SIZE) return false;
    return (
      this.instructions.length === 0 ||
      this.units + this.options.computeUnits.estimate(ix) <= MAX_TRANSACTION_COMPUTE_UNITS
    );
  }

  add(ix: TransactionInstruction): void {
    this.bytes.add(ix);
    this.units += this.options.computeUnits.estimate(ix);
    this.instructions.push(ix);
  }

  /** The serialized size, compute-budget instructions included. */
  size(): number {
    return this.bytes.size();
  }

  build(): PackedTransaction {
    return withComputeBudget(this.instructions, this.options);
  }
}

/** True when `ix` alone fits one transaction paid by `feePayer`. */
export function fitsAlone(
  ix: TransactionInstruction,
  feePayer: PublicKey,
  options: PackOptions,
): boolean {
  return new TransactionFill(feePayer, options).accepts(ix);
}

/**
 * Splits instructions, in order, into as few transactions as Solana's limits allow: 1232 bytes
 * (exact, TransactionBudget, in linear time) and 1.4 M compute units by the estimates, each
 * with its compute-budget instructions. Throws on an instruction that cannot fit even alone.
 */
export function packInstructions(
  instructions: TransactionInstruction[],
  feePayer: PublicKey,
  options: PackOptions,
): PackedTransaction[] {
  const packed: PackedTransaction[] = [];
  let fill = new TransactionFill(feePayer, options);
  for (const ix of instructions) {
    if (!fill.accepts(ix)) {
      if (fill.instructions.length > 0) packed.push(fill.build());
      fill = new TransactionFill(feePayer, options);
      if (!fill.accepts(ix)) {
        throw new RangeError(
          `one instruction is over the ${PACKET_DATA_SIZE}-byte transaction limit`,
        );
      }
    }
    fill.add(ix);
  }
  if (fill.instructions.length > 0) packed.push(fill.build());
  return packed;
}

/** Serialized size (or anything over the limit when it does not fit): compact-u16 signature count, 64 bytes per signature, the message. */
export function transactionSize(
  instructions: TransactionInstruction[],
  feePayer: PublicKey,
): number {
  const tx = new Transaction({
    feePayer,
    blockhash: PublicKey.default.toBase58(),
    lastValidBlockHeight: 0,
  });
  tx.add(...instructions);
  const message = tx.compileMessage();
  const signatures = message.header.numRequiredSignatures;
  let messageBytes: number;
  try {
    messageBytes = message.serialize().length;
  } catch {
    // web3.js serializes into a 1232-byte buffer and throws past it.
    return PACKET_DATA_SIZE + 1;
  }
  return shortVecLength(signatures) + signatures * 64 + messageBytes;
}

function shortVecLength(n: number): number {
  return n < 0x80 ? 1 : n < 0x4000 ? 2 : 3;
}

/** The instructions with their SetComputeUnitLimit raised by `units` (kept at the maximum). */
export function withLimitRaisedBy(
  instructions: TransactionInstruction[],
  units: number,
): TransactionInstruction[] {
  if (units === 0) return instructions;
  const at = instructions.findIndex(
    (ix) => ix.programId.equals(ComputeBudgetProgram.programId) && ix.data[0] === LIMIT_TAG,
  );
  if (at < 0) throw new Error('a transaction without a compute-unit limit cannot be made unique');
  const limit = instructions[at].data.readUInt32LE(1);
  // At the maximum, lower instead: a limit that ran out is raised back to the maximum.
  const raised =
    limit + units <= MAX_TRANSACTION_COMPUTE_UNITS
      ? limit + units
      : MAX_TRANSACTION_COMPUTE_UNITS - units;
  const out = [...instructions];
  out[at] = ComputeBudgetProgram.setComputeUnitLimit({ units: raised });
  return out;
}

/** The first data byte of SetComputeUnitLimit. */
const LIMIT_TAG = ComputeBudgetProgram.setComputeUnitLimit({ units: 0 }).data[0];
