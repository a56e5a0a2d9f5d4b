import { PublicKey, TransactionInstruction } from '@solana/web3.js';
import { PackOptions, TransactionFill } from '../../chain/transaction-packer';
import { Semaphore } from './bounded-pool';

/**
 * Instructions that become ready one by one (a SetName once its track is certified) sent in
 * packed transactions as they come: a transaction leaves as soon as it is full, or after
 * `lingerMs` without a new instruction, so a burst shares transactions and a straggler does
 * not wait for the end. At most `concurrency` transactions are in flight. Transactions are
 * filled by `packing` (ChainWriter's), so each batch is sent as one transaction.
 */
export class InstructionStream {
  private fill: TransactionFill;
  private timer?: NodeJS.Timeout;
  private readonly inFlight = new Set<Promise<void>>();
  private readonly slots: Semaphore;
  private failure?: { error: unknown };

  constructor(
    private readonly send: (batch: TransactionInstruction[]) => Promise<unknown>,
    private readonly feePayer: PublicKey,
    private readonly packing: PackOptions,
    concurrency: number,
    private readonly lingerMs = 25,
  ) {
    this.fill = new TransactionFill(feePayer, packing);
    this.slots = new Semaphore(concurrency);
  }

  get failed(): boolean {
    return this.failure !== undefined;
  }

  push(ix: TransactionInstruction): void {
    if (this.failure) return;
    // One that cannot fit even alone is sent alone, for `send` to refuse.
    if (!this.fill.accepts(ix)) this.dispatch();
    this.fill.add(ix);
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
    if (this.fill.instructions.length === 0) return;
    const batch = this.fill.instructions;
    this.fill = new TransactionFill(this.feePayer, this.packing);
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
