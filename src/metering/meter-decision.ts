import type { BudgetName, OBJECT_BYTES } from './metering-budgets';

/** The answer to one request (or one byte charge) against one budget. */
export interface MeterDecision {
  allowed: boolean;
  budget: BudgetName | typeof OBJECT_BYTES;
  /** Requests (bytes for `object_bytes`) allowed per window. */
  limit: number;
  /** What is left in the current window, never below 0. */
  remaining: number;
  /** Seconds until the window ends (at least 1). */
  resetSecs: number;
  /** Seconds to wait before trying again: 0 when allowed, else `resetSecs`. */
  retryAfterSecs: number;
  /**
   * Nothing was counted (metering switched off, or the store failing open): the figures are not
   * real, and no RateLimit headers are sent for it.
   */
  degraded: boolean;
}

/** Everything allowed, nothing counted: metering switched off. */
export function unmetered(budget: MeterDecision['budget'], limit: number): MeterDecision {
  return {
    allowed: true,
    budget,
    limit,
    remaining: limit,
    resetSecs: 1,
    retryAfterSecs: 0,
    degraded: true,
  };
}
