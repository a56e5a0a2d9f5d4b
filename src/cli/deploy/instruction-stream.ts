import { PublicKey, TransactionInstruction } from '@solana/web3.js';
import { PACKET_DATA_SIZE } from '../../chain/transaction-packer';
import { Semaphore } from './bounded-pool';
import { TransactionBudget } from '../../chain/transaction-budget';

/**
 * Instructions that become ready one by one (a SetName once its track is certified) sent in
 * packed transactions as they come: a transaction leaves as soon as it is full, or after
 * `lingerMs` without a new instruction, so a burst shares transactions and a straggler does
 * not wait for the end. At most `concurrency` transactions are in flight.
 */
export class InstructionStream {
  private batch: TransactionInstruction[] = [];
  private budget: TransactionBudget;
  private timer?: NodeJS.Timeout;
  private readonly inFlight = new Set<Promise<void>>();
  private readonly slots: Semaphore;
  private failure?: { error: unknown };

  constructor(
    private readonly send: (batch: TransactionInstruction[]) => Promise<unknown>,
    private readonly feePayer: PublicKey,
    concurrency: number,
    private readonly lingerMs = 25,
    private readonly maxInstructions = 64,
  ) {
    this.budget = new TransactionBudget(feePayer);
    this.slots = new Semaphore(concurrency);
  }

  get failed(): boolean {
    return this.failure !== undefined;
  }

  push(ix: TransactionInstruction): void {
    if (this.failure) return;
    if (
      this.batch.length >= this.maxInstructions ||
      (this.batch.length > 0 && this.budget.sizeIf(ix) > PACKET_DATA_SIZE)
    ) {
      this.dispatch();
    }
    this.budget.add(ix);
    this.batch.push(ix);
    clearTimeout(this.timer);
    this.timer = setTimeout(() => this.dispatch(), this.lingerMs);
  }

  /** Sends what is left and waits for every transaction; throws the first failure. */
  async close(): Promise<void> {
    this.dispatch();
    while (this.inFlight.size > 0) await Promise.all(this.inFlight);
    if (this.failure) throw this.failure.error;
  }

  private dispatch(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    if (this.batch.length === 0) return;
    const batch = this.batch;
    this.batch = [];
    this.budget = new TransactionBudget(this.feePayer);
    const sent = this.slots
      .run(async () => {
        if (!this.failure) await this.send(batch);
      })
      .catch((error: unknown) => {
        this.failure ??= { error };
      })
      .finally(() => this.inFlight.delete(sent));
    this.inFlight.add(sent);
  }
}
