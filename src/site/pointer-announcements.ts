/** A pointer read older than the one announced is read again this many times at most. */
const RETRIES = 50;

/**
 * Versions the chain announced per tape (a notification, a poll) that no read of the tape has
 * returned yet. An RPC node can answer a read with state older than a notification it already
 * sent (another node behind a load balancer, a read in flight since before the Publish), and
 * such a read must not leave the old version in place for a snapshot's whole life.
 */
export class PointerAnnouncements {
  private readonly pending = new Map<string, { version: number; retries: number }>();

  announce(tape: string, version: number): void {
    this.pending.set(tape, { version, retries: RETRIES });
  }

  /**
   * After a read of the tape's pointer: true when it is older than announced and must be read
   * again (a bounded number of times); false once it caught up or retries ran out.
   */
  behind(tape: string, version: number): boolean {
    const announced = this.pending.get(tape);
    if (announced === undefined) return false;
    if (version >= announced.version || announced.retries <= 0) {
      this.pending.delete(tape);
      return false;
    }
    announced.retries--;
    return true;
  }
}
