/**
 * Polls `probe` until it holds; fails with `what` once `timeoutMs` has passed. Tests wait on
 * the condition itself, never on a fixed sleep: a loaded CI machine can take far longer than a
 * quiet one to close a file or run a timer, and a poll still ends at once on a fast one.
 */
export async function eventually(
  what: string,
  probe: () => boolean | Promise<boolean>,
  { timeoutMs = 10_000, everyMs = 10 }: { timeoutMs?: number; everyMs?: number } = {},
): Promise<number> {
  const started = Date.now();
  for (;;) {
    if (await probe()) return Date.now() - started;
    if (Date.now() - started > timeoutMs) throw new Error(`not within ${timeoutMs} ms: ${what}`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}

/** For waits across other processes (a replica, a client's sync, a reconnect): up to a minute. */
export const ACROSS_PROCESSES = { timeoutMs: 60_000, everyMs: 250 };
