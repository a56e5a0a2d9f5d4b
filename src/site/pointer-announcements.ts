/** A pointer read older than the one announced is read again this many times at most. */
const RETRIES = 50;

/**
 * Pointers the chain announced per tape (a notification, a poll) that no read of the tape has
 * returned yet, by their `sequence` (it only grows, whereas a rollback lowers the version). An RPC node can answer a read with state older than a notification it already
 * sent (another node behind a load balancer, a read in flight since before the Publish), and
 * such a read must not leave the old version in place for a snapshot's whole life.
 */
export class PointerAnnouncements {
  private readonly pending = new Map<string, { sequence: number; retries: number }>();

  announce(tape: string, sequence: number): void {
    this.pending.set(tape, { sequence, retries: RETRIES });
  }

  /**
   * After a read of the tape's pointer: true when it is older than announced and must be read
   * again (a bounded number of times); false once it caught up or retries ran out.
   */
  behind(tape: string, sequence: number): boolean {
    const announced = this.pending.get(tape);
    if (announced === undefined) return false;
    if (sequence >= announced.sequence || announced.retries <= 0) {
      this.pending.delete(tape);
      return false;
    }
    announced.retries--;
    return true;
  }
}
