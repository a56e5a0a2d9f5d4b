/**
 * How many uploads a deploy has in flight, adapted to what the gateway accepts (docs/cli.md,
 * "Busy gateways").
 *
 * A 429 means this client has more at the gateway than it allows: either uploads at once
 * (`storage.uploads.max_per_client`) or requests per window (`gateway.metering.upload`). On each
 * refusal the window shrinks to the uploads still in flight (the ones the gateway is holding),
 * so the next uploads wait for those instead of being refused in turn. When a refusal leaves
 * nothing in flight, the gateway accepts none of ours right now: nothing is sent until the
 * `Retry-After` it gave, instead of a stream of requests that would all be refused. Each
 * accepted upload widens the window by one again (doubling per round trip), up to
 * `--concurrency`. Retries go before uploads not yet tried, so a refused file is not starved by
 * the ones queued behind it.
 */
export class UploadPacer {
  private inFlight = 0;
  private limit: number;
  private resumeAt = 0;
  private timer?: NodeJS.Timeout;
  private readonly retries: (() => void)[] = [];
  private readonly fresh: (() => void)[] = [];

  constructor(
    private readonly max: number,
    private readonly now: () => number = Date.now,
  ) {
    this.limit = max;
  }

  /** Uploads the pacer lets run at once right now. */
  get window(): number {
    return this.limit;
  }

  /** When sending resumes (epoch ms), or 0 when it is not paused. */
  get pausedUntil(): number {
    return this.resumeAt > this.now() ? this.resumeAt : 0;
  }

  /** Runs `work` in a slot; `work` reports how the gateway answered through the returned value. */
  async run<T>(retry: boolean, work: () => Promise<T>, outcome: (r: T) => Outcome): Promise<T> {
    await this.acquire(retry);
    let result: T;
    try {
      result = await work();
    } catch (err) {
      this.release({ kind: 'other' });
      throw err;
    }
    this.release(outcome(result));
    return result;
  }

  private acquire(retry: boolean): Promise<void> {
    if (this.retries.length === 0 && this.fresh.length === 0 && this.canStart()) {
      this.inFlight++;
      return Promise.resolve();
    }
    return new Promise<void>((resolve) => {
      (retry ? this.retries : this.fresh).push(resolve);
      this.pump();
    });
  }

  private release(outcome: Outcome): void {
    this.inFlight--;
    if (outcome.kind === 'accepted') {
      this.limit = Math.min(this.max, this.limit + 1);
    } else if (outcome.kind === 'refused') {
      this.limit = Math.max(1, this.inFlight);
      if (this.inFlight === 0) {
        this.resumeAt = Math.max(this.resumeAt, this.now() + outcome.retryAfterMs);
      }
    }
    this.pump();
  }

  private canStart(): boolean {
    return this.inFlight < this.limit && this.now() >= this.resumeAt;
  }

  private pump(): void {
    while (this.canStart()) {
      const next = this.retries.shift() ?? this.fresh.shift();
      if (!next) return;
      this.inFlight++;
      next();
    }
    const waiting = this.retries.length + this.fresh.length > 0;
    const wait = this.resumeAt - this.now();
    if (waiting && wait > 0 && !this.timer) {
      this.timer = setTimeout(() => {
        this.timer = undefined;
        this.pump();
      }, wait);
    }
  }
}

/** How the gateway answered one request, as far as pacing is concerned. */
export type Outcome =
  | { kind: 'accepted' }
  | { kind: 'refused'; retryAfterMs: number }
  /** Anything else (an error, a 503, a 404): says nothing about our share of the gateway. */
  | { kind: 'other' };
