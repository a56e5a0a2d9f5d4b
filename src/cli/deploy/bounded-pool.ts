/**
 * Runs `task(0..count-1)` with at most `concurrency` in flight. After the first failure no new
 * task starts; the ones in flight are awaited, then the first error is thrown, so nothing is
 * left running behind the caller's back.
 */
export async function runBounded(
  count: number,
  concurrency: number,
  task: (index: number) => Promise<void>,
): Promise<void> {
  let next = 0;
  let failure: { error: unknown } | undefined;
  const worker = async () => {
    while (next < count && !failure) {
      const index = next++;
      try {
        await task(index);
      } catch (error) {
        failure ??= { error };
      }
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(concurrency, count)) }, worker));
  if (failure) throw failure.error;
}

/** A counting semaphore: `run` waits for a free slot, so callers can nest work without deadlock. */
export class Semaphore {
  private active = 0;
  private readonly waiting: (() => void)[] = [];

  constructor(private readonly slots: number) {}

  async run<T>(work: () => Promise<T>): Promise<T> {
    // A finishing task hands its slot straight to the next waiter, so no newcomer can slip in
    // between and push the count over the limit.
    if (this.active < this.slots) this.active++;
    else await new Promise<void>((r) => this.waiting.push(r));
    try {
      return await work();
    } finally {
      const next = this.waiting.shift();
      if (next) next();
      else this.active--;
    }
  }
}
