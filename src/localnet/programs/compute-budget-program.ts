import { PublicKey } from '@solana/web3.js';
import { InstructionFailure, InvokeContext, NativeProgram } from '../runtime/native-program';

export const COMPUTE_BUDGET_PROGRAM_ID = new PublicKey(
  'ComputeBudget111111111111111111111111111111',
);

/**
 * Compute Budget instructions (unit limit, unit price, heap size, data size limit) are accepted
 * and ignored: native programs here are not metered and the local network charges no priority
 * fees. Unknown discriminants fail as they do on Solana.
 */
export class ComputeBudgetProgram implements NativeProgram {
  readonly programId = COMPUTE_BUDGET_PROGRAM_ID;

  process(ctx: InvokeContext): void {
    const tag = ctx.data.length > 0 ? ctx.data[0] : -1;
    if (tag < 0 || tag > 4) throw new InstructionFailure('InvalidInstructionData', '');
  }
}
