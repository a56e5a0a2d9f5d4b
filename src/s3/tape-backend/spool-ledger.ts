import { Injectable } from '@nestjs/common';
import { SpoolBudget, SpoolHold } from './spool-budget';

/**
 * Port: the spool budget as the S3 write path asks it (docs/s3.md, "Spool budget"): room for a
 * body about to be received, and the bytes a tape holds. In this process (SpoolBudget) for one
 * gateway; in the shared Redis for replicas (SharedSpoolLedger), so the per-tape and the
 * gateway-wide limits hold over all of them.
 */
export abstract class SpoolLedger {
  /** Reserves room for a body; refused (SlowDown) past `gateway.s3.max_spool_bytes`. */
  abstract reserve(tapeAddress: string, bytes: number): Promise<SpoolHold>;
  /** Bytes held for one tape: its open uploads' parts and its bodies in flight. */
  abstract tapeBytes(tapeAddress: string): Promise<number>;
}

/** One gateway: the in-process SpoolBudget. */
@Injectable()
export class LocalSpoolLedger extends SpoolLedger {
  constructor(private readonly budget: SpoolBudget) {
    super();
  }

  async reserve(tapeAddress: string, bytes: number): Promise<SpoolHold> {
    return this.budget.reserve(tapeAddress, bytes);
  }

  async tapeBytes(tapeAddress: string): Promise<number> {
    return this.budget.tapeBytes(tapeAddress);
  }
}
