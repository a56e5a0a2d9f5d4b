/**
 * The writes waiting for a tape's next group (docs/s3.md, "Writes: group commit"), and the short
 * wait after a group is answered for its writers to send their next writes. Without that wait a
 * client keeping n requests in flight splits into a group of 1 (the first to come back starts a
 * round alone) and a group of n - 1, alternating: twice the rounds for the same writes.
 */
export class WriteQueue<T> {
  private readonly items: T[] = [];
  private refill?: { wanted: number; done: () => void };

  constructor(private readonly refillWaitMs: number) {}

  get length(): number {
    return this.items.length;
  }

  push(item: T): void {
    this.items.push(item);
    if (this.refill !== undefined && this.items.length >= this.refill.wanted) this.refill.done();
  }

  /** The oldest writes, at most `max`, for the next group. */
  take(max: number): T[] {
    return this.items.splice(0, max);
  }

  /**
   * Resolves once `answered` writes wait again (the writers just answered came back), or after
   * the refill wait: whichever comes first. A group never waits longer than that for a write.
   */
  refilled(answered: number): Promise<void> {
    if (this.items.length >= answered) return Promise.resolve();
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.refill = undefined;
        resolve();
      };
      const timer = setTimeout(done, this.refillWaitMs);
      this.refill = { wanted: answered, done };
    });
  }
}
