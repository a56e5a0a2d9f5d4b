import type { HitResult } from './meter-store';

/** Sends `amount` for `key` to the shared counter; answers its total and the ms left. */
export type SendHit = (key: string, amount: number, windowMs: number) => Promise<[number, number]>;

interface KeyState {
  windowMs: number;
  /** The shared total as last answered, and when (local clock) that answer came. */
  knownTotal: number;
  knownAt: number;
  /** When the shared window ends (local clock). */
  resetAt: number;
  /** Hits answered here and not sent yet. */
  unsent: number;
  /** Hits sent by the sync and not answered yet. */
  inFlight: number;
}

/**
 * Local pre-aggregation for a shared counter (opt-in: `redis_sync_ms` > 0). For a key whose
 * shared total was learnt less than `syncMs` ago, hits are answered here, at once, from that
 * total plus what this gateway has added since; they are sent as one INCRBY per key every
 * `syncMs`, and each answer refreshes what is known. A key not seen for `syncMs` (or never, or in
 * a new window, or after an error) goes the exact way again, through Redis.
 *
 * This gateway's own hits are always counted; other gateways' hits are seen up to about two
 * periods plus one round trip late, so a client spread over N gateways can pass its limit by what the other
 * N - 1 admit in that time. A client over its limit is refused here without asking Redis.
 *
 * Replies on one connection come in the order commands were sent, so when an answer arrives,
 * every sync sent before it has been answered (and left `inFlight`): `inFlight` holds exactly the
 * hits sent after it, which its total does not include yet.
 */
export class LocalLead {
  private readonly states = new Map<string, KeyState>();
  private timer: NodeJS.Timeout | undefined;
  private readonly sweeper: NodeJS.Timeout;

  constructor(
    private readonly syncMs: number,
    private readonly send: SendHit,
    private readonly now: () => number = Date.now,
  ) {
    this.sweeper = setInterval(() => this.sweep(), 10_000);
    this.sweeper.unref();
  }

  /** The answer for a hit on a fresh key, or undefined when it must go the exact way. */
  tryHit(key: string, amount: number): HitResult | undefined {
    const state = this.states.get(key);
    if (state === undefined) return undefined;
    const now = this.now();
    if (now >= state.resetAt) return undefined;
    // Stale once older than a period, unless hits are owed: then a sync is scheduled or on its
    // way, and its answer will bring the news (waiting for it would stall the hot path).
    const owes = state.unsent !== 0 || state.inFlight !== 0;
    if (now - state.knownAt > this.syncMs && !owes) return undefined;
    state.unsent += amount;
    this.timer ??= setTimeout(this.sync, this.syncMs);
    return {
      total: state.knownTotal + state.inFlight + state.unsent,
      msToReset: state.resetAt - now,
    };
  }

  /**
   * Records an exact answer from the shared counter and returns what this gateway owes on top of
   * it: hits answered here that the answer cannot include (not sent yet, or sent after it).
   */
  learn(key: string, windowMs: number, total: number, msToReset: number): number {
    const now = this.now();
    let state = this.states.get(key);
    if (state === undefined) {
      state = { windowMs, knownTotal: 0, knownAt: 0, resetAt: 0, unsent: 0, inFlight: 0 };
      this.states.set(key, state);
    }
    state.knownTotal = total;
    state.knownAt = now;
    state.resetAt = now + msToReset;
    return state.inFlight + state.unsent;
  }

  /** Forgets a key after a failure: its next hit goes the exact way. */
  forget(key: string): void {
    const state = this.states.get(key);
    if (state) state.knownAt = -Infinity;
  }

  get size(): number {
    return this.states.size;
  }

  /** Drops keys whose window is over and that owe nothing. */
  sweep(now = this.now()): void {
    for (const [key, state] of this.states) {
      if (state.unsent === 0 && state.inFlight === 0 && now >= state.resetAt)
        this.states.delete(key);
    }
  }

  close(): void {
    clearInterval(this.sweeper);
    clearTimeout(this.timer);
    this.timer = undefined;
    this.states.clear();
  }

  private readonly sync = (): void => {
    this.timer = undefined;
    for (const [key, state] of this.states) {
      if (state.unsent === 0) continue;
      const amount = state.unsent;
      state.unsent = 0;
      state.inFlight += amount;
      this.send(key, amount, state.windowMs).then(
        ([total, msToReset]) => {
          state.inFlight -= amount;
          this.learn(key, state.windowMs, total, msToReset);
        },
        () => {
          state.inFlight -= amount;
          this.forget(key); // those hits are lost: the store is failing open anyway
        },
      );
    }
  };
}
