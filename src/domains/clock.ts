/**
 * Milliseconds for cache lifetimes, behind a port so tests can move time without waiting.
 * Monotonic (performance.now), so a wall-clock step cannot make bindings live for hours.
 */
export abstract class Clock {
  abstract now(): number;
}

export class MonotonicClock extends Clock {
  now(): number {
    return performance.now();
  }
}
