import { ComputeBudgetProgram, PublicKey, TransactionInstruction } from '@solana/web3.js';
import { ASSOCIATED_TOKEN_PROGRAM_ID, SYSTEM_PROGRAM_ID, TOKEN_PROGRAM_ID } from './program-ids';
import { Tag } from './tape-instruction-data';

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
  /** Added per byte of instruction data (names and content types are validated and hashed). */
  tapePerDataByte: Partial<Record<Tag, number>>;
  system: number;
  token: number;
  associatedToken: number;
  computeBudget: number;
}

/** What `sol_try_find_program_address` charges per bump it tries. */
export const PDA_TRY_UNITS = 1_500;

/**
 * Bumps budgeted for an instruction that derives `pdas` PDAs. Each try succeeds with
 * probability 1/2 (the hash lands off the curve), so the tries of `pdas` derivations exceed T
 * with the probability that T fair coin flips give fewer than `pdas` heads. The budget is the
 * least T where that is at most 1 in 1,000 instructions, and never fewer than 8 tries per PDA
 * (what earlier builds budgeted): one PDA gets 10 (8 failed once in 256, as the differential
 * test's SetDelegate did with 9), two get 16, six get 48. The writer re-sends a transaction
 * that still runs out with the 1.4 M maximum.
 */
export function derivationTries(pdas: number): number {
  const tailAtMost = 1 / 1_000;
  for (let tries = pdas; ; tries++) {
    let fewerHeads = 0;
    let ways = 1; // C(tries, heads)
    for (let heads = 0; heads < pdas; heads++) {
      fewerHeads += ways;
      ways = (ways * (tries - heads)) / (heads + 1);
    }
    if (fewerHeads / 2 ** tries <= tailAtMost) return Math.max(tries, 8 * pdas);
  }
}

/**
 * A tape instruction's worst case: what program/tape.so measured on its longest path apart
 * from PDA derivations (docs/program.md, "Compute units"), a quarter more, plus the tries
 * budgeted for the PDAs it derives.
 */
function tapeCost(measuredWithoutDerivations: number, derivations: number): number {
  return (
    Math.ceil(measuredWithoutDerivations * 1.25) + derivationTries(derivations) * PDA_TRY_UNITS
  );
}

/**
 * Worst-case compute units of one instruction: a transaction's limit is the sum over its
 * instructions. Too low and the transaction fails (exceeded CU meter); too high only puts
 * fewer instructions in a transaction (and, with a unit price, pays more).
 */
export const COMPUTE_UNITS: ComputeUnitTable = {
  tape: {
    // Config PDA.
    [Tag.InitConfig]: tapeCost(8_000, 1),
    // Config, tape and the payer's token account; a lamport gift at the tape adds 3 CPIs;
    // extend and resize decode a tape with a full history (1.3.0: about 3,700 more).
    [Tag.CreateTape]: tapeCost(12_800, 3),
    [Tag.ExtendTape]: tapeCost(11_700, 3),
    [Tag.ResizeTape]: tapeCost(11_700, 3),
    [Tag.SetDelegate]: tapeCost(3_500, 1),
    // Tape and config; the 1.3.0 history (up to 26 entries, 8 aliases) decoded and evicted.
    [Tag.Publish]: tapeCost(13_000, 2),
    [Tag.SetCurrent]: tapeCost(10_500, 2),
    // Tape.
    [Tag.RemoveAlias]: tapeCost(10_000, 1),
    [Tag.SetKeep]: tapeCost(10_000, 1),
  },
  // No instruction validates variable-length data any more (names left with SetName).
  tapePerDataByte: {},
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
    if (!Object.hasOwn(this.table.tape, tag)) return DEFAULT_INSTRUCTION_COMPUTE_UNITS;
    const perByte = this.table.tapePerDataByte[tag as Tag] ?? 0;
    return this.table.tape[tag as Tag] + perByte * data.length;
  }
}
