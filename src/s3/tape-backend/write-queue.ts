/**
 * The writes waiting for a tape's next group (docs/s3.md, "Writes: group commit"), and the waits
 * that decide when the next group starts: until the writers of the group just answered are
 * back (bounded by a short refill wait), or, while a group is on its way, until as many writes
 * wait as that group's writers. Without them a client keeping n requests in flight splits into
 * a group of 1 (the first to come back starts a round alone) and a group of n - 1, alternating:
 * twice the rounds for the same writes.
 */
export class WriteQueue<T> {
  private readonly items: T[] = [];
  private readonly waiters = new Set<{ wanted: number; done: () => void }>();

  get length(): number {
    return this.items.length;
  }

  push(item: T): void {
    this.items.push(item);
    for (const waiter of [...this.waiters]) {
      if (this.items.length >= waiter.wanted) waiter.done();
    }
  }

  /** The oldest writes, at most `max`, for the next group. */
  take(max: number): T[] {
    return this.items.splice(0, max);
  }

  /**
   * Resolves once `wanted` writes wait, after `timeoutMs` (if given), or once `until` settles
   * (if given): whichever comes first.
   */
  waitFor(
    wanted: number,
    options: { timeoutMs?: number; until?: Promise<unknown> } = {},
  ): Promise<void> {
    if (this.items.length >= wanted) return Promise.resolve();
    return new Promise((resolve) => {
      let timer: NodeJS.Timeout | undefined;
      const waiter = {
        wanted,
        done: () => {
          if (timer !== undefined) clearTimeout(timer);
          this.waiters.delete(waiter);
          resolve();
        },
      };
      this.waiters.add(waiter);
      if (options.timeoutMs !== undefined) timer = setTimeout(waiter.done, options.timeoutMs);
      void options.until?.then(waiter.done, waiter.done);
    });
  }
}
