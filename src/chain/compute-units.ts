import { ComputeBudgetProgram, PublicKey, TransactionInstruction } from '@solana/web3.js';
import { ASSOCIATED_TOKEN_PROGRAM_ID, SYSTEM_PROGRAM_ID, TOKEN_PROGRAM_ID } from './program-ids';
import { Tag } from './tape-instructions';

/** Solana's cap on the compute-unit limit of one transaction. */
export const MAX_TRANSACTION_COMPUTE_UNITS = 1_400_000;

/**
 * What the runtime grants each instruction of a transaction that sets no limit: the estimate
 * for a program this table does not know, so such a transaction is no worse off than without
 * a limit.
 */
export const DEFAULT_INSTRUCTION_COMPUTE_UNITS = 200_000;

export interface ComputeUnitTable {
  /** The tape program, by instruction tag (the first data byte); the CPIs it makes count here. */
  tape: Record<Tag, number>;
  system: number;
  token: number;
  associatedToken: number;
  computeBudget: number;
}

/**
 * Worst-case compute units of one instruction, headroom included: a transaction's limit is
 * the sum over its instructions. Too low and the transaction fails (exceeded CUs meter); too
 * high only puts fewer instructions in a transaction (and, with a unit price, pays more).
 *
 * PLACEHOLDERS: to be replaced by the SBF program's measured worst cases plus a margin.
 */
export const COMPUTE_UNITS: ComputeUnitTable = {
  tape: {
    [Tag.InitConfig]: 40_000,
    [Tag.CreateTape]: 60_000,
    [Tag.ExtendTape]: 30_000,
    [Tag.ResizeTape]: 30_000,
    [Tag.SetDelegate]: 5_000,
    [Tag.WriteTrack]: 40_000,
    [Tag.SetName]: 60_000,
    [Tag.CertifyTrack]: 8_000,
    [Tag.RemoveName]: 15_000,
    [Tag.ReleaseTrack]: 12_000,
  },
  // A builtin consumes 150; 3,000 is what Agave sets aside for a builtin instruction.
  system: 3_000,
  token: 10_000,
  associatedToken: 40_000,
  computeBudget: 150,
};

/** Estimates instructions by their program (and, for the tape program, its instruction tag). */
export class ComputeUnitEstimator {
  constructor(
    readonly tapeProgramId: PublicKey,
    private readonly table: ComputeUnitTable = COMPUTE_UNITS,
  ) {}

  estimate(ix: TransactionInstruction): number {
    const program = ix.programId;
    if (program.equals(this.tapeProgramId)) return this.tapeInstruction(ix.data);
    if (program.equals(ComputeBudgetProgram.programId)) return this.table.computeBudget;
    if (program.equals(SYSTEM_PROGRAM_ID)) return this.table.system;
    if (program.equals(TOKEN_PROGRAM_ID)) return this.table.token;
    if (program.equals(ASSOCIATED_TOKEN_PROGRAM_ID)) return this.table.associatedToken;
    return DEFAULT_INSTRUCTION_COMPUTE_UNITS;
  }

  private tapeInstruction(data: Buffer): number {
    const tag = data.length > 0 ? data[0] : -1;
    // An unknown tag fails on chain anyway; it gets what it would get without a limit.
    return Object.hasOwn(this.table.tape, tag)
      ? this.table.tape[tag as Tag]
      : DEFAULT_INSTRUCTION_COMPUTE_UNITS;
  }
}
