/**
 * How long an upload waits before it asks again (docs/cli.md, "Busy gateways"): what the
 * gateway says in `Retry-After` when it says it, else exponential backoff with jitter, and never
 * more than a cap in all for one request.
 */

/** First backoff step and the longest single backoff when the gateway names no time. */
export const BACKOFF_BASE_MS = 250;
export const BACKOFF_MAX_MS = 15_000;
/** The default cap on what one upload request waits in all: `--max-wait`, TAPE_UPLOAD_MAX_WAIT. */
export const DEFAULT_MAX_WAIT_MS = 2 * 60_000;

/**
 * `Retry-After` in milliseconds from `now`: delay-seconds (`120`) or an HTTP date
 * (`Wed, 21 Oct 2026 07:28:00 GMT`, a date in the past meaning now); undefined when absent or
 * unreadable (the caller then backs off on its own).
 */
export function parseRetryAfter(value: string | undefined, now: number): number | undefined {
  if (value === undefined) return undefined;
  const text = value.trim();
  if (/^\d{1,10}$/.test(text)) return Number(text) * 1000;
  // HTTP dates start with the day's name (IMF-fixdate, RFC 850, asctime); Date.parse alone
  // would also take "5 apples" or "-1".
  if (!/^[A-Za-z]{3,9},? /.test(text)) return undefined;
  const at = Date.parse(text);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

/**
 * The wait before attempt `attempt + 1` when the gateway named no time: `base · 2^(attempt−1)`
 * capped at `max`, then "equal jitter" (between half and all of it) so that many uploads
 * refused together do not come back together.
 */
export function backoffMs(
  attempt: number,
  random: () => number = Math.random,
  base = BACKOFF_BASE_MS,
  max = BACKOFF_MAX_MS,
): number {
  const step = Math.min(max, base * 2 ** Math.max(0, attempt - 1));
  return Math.round(step / 2 + (random() * step) / 2);
}

/**
 * What the gateway asked for, plus a little (up to a tenth, at most 1 s) so that uploads refused
 * in the same instant do not all return in the same one.
 */
export function retryAfterWithJitter(ms: number, random: () => number = Math.random): number {
  return Math.round(ms + random() * Math.min(1000, Math.max(50, ms / 10)));
}

/** Time one request has spent waiting, against its cap. */
export class WaitBudget {
  private waited = 0;

  constructor(readonly capMs: number) {}

  get spentMs(): number {
    return this.waited;
  }

  /** Takes `ms` from the budget; false (and nothing taken) when that would pass the cap. */
  take(ms: number): boolean {
    if (this.waited + ms > this.capMs) return false;
    this.waited += ms;
    return true;
  }
}
