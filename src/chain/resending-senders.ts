import { Injectable } from '@nestjs/common';
import { PublicKey } from '@solana/web3.js';
import { ComputeUnitEstimator } from './compute-units';
import { ResendingSender, SenderRpc } from './resending-sender';
import { PackOptions } from './transaction-packer';
import { LoaderComputeUnits } from './upgradeable-loader';

/** Whose instructions a sender's compute budget estimates: the tape program's or the loader's. */
export type SenderProgram = 'tape' | 'loader';

export interface SenderRequest {
  /** For error messages: the RPC the transactions go to. */
  rpcUrl: string;
  programId: PublicKey;
  /** Micro-lamports per compute unit; none by default. */
  computeUnitPrice?: number;
  /** Transactions in flight at once (ResendingSender's default when unset). */
  concurrency?: number;
}

/**
 * ResendingSenders for commands that land many transactions over a Connection of their own
 * (`tape network deploy` and `init`), with the compute budget of the program they call:
 * the tape program (ComputeUnitEstimator) or the upgradeable loader (LoaderComputeUnits).
 */
@Injectable()
export class ResendingSenders {
  packing(program: SenderProgram, programId: PublicKey, computeUnitPrice?: number): PackOptions {
    const computeUnits =
      program === 'loader'
        ? new LoaderComputeUnits(programId)
        : new ComputeUnitEstimator(programId);
    return { computeUnits, computeUnitPrice };
  }

  sender(rpc: SenderRpc, program: SenderProgram, req: SenderRequest): ResendingSender {
    return new ResendingSender(rpc, {
      rpcUrl: req.rpcUrl,
      packing: this.packing(program, req.programId, req.computeUnitPrice),
      concurrency: req.concurrency,
    });
  }
}
