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

/** A clock that moves only when told: for tests that check cache lifetimes. */
export class ManualClock extends Clock {
  constructor(private current = 0) {
    super();
  }
  now(): number {
    return this.current;
  }
  advanceSecs(secs: number): void {
    this.current += secs * 1000;
  }
}
