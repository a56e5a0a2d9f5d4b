import { HitResult, MeterStore, MeterStoreStats } from './meter-store';

/** Where the wrapper reports; Nest's Logger fits. */
export interface FailureLog {
  warn(message: string): void;
  log(message: string): void;
}

export interface FailOpenOptions {
  /** After a failure, the store is not asked again for this long (requests pass uncounted). */
  cooldownMs?: number;
  /** At most one warning per this many milliseconds; the ones in between are counted. */
  logEveryMs?: number;
  now?: () => number;
}

/**
 * A shared store that is down must not take the gateway down with it: every failed hit is
 * counted, logged (rate-limited) and answered as allowed. After a failure the store is left
 * alone for a short cooldown, so a Redis that hangs costs one command timeout per cooldown, not
 * one per request. The first success after failures is logged once.
 */
export class FailOpenMeterStore extends MeterStore {
  private failures = 0;
  private failOpenHits = 0;
  private retryAt = 0;
  private failing = false;
  private lastWarnAt = -Infinity;
  private unreported = 0;
  private readonly cooldownMs: number;
  private readonly logEveryMs: number;
  private readonly now: () => number;

  constructor(
    private readonly inner: MeterStore,
    private readonly log: FailureLog,
    options: FailOpenOptions = {},
  ) {
    super();
    this.cooldownMs = options.cooldownMs ?? 500;
    this.logEveryMs = options.logEveryMs ?? 30_000;
    this.now = options.now ?? Date.now;
  }

  hit(
    bucket: string,
    client: string,
    amount: number,
    windowMs: number,
  ): HitResult | Promise<HitResult> {
    if (this.failing && this.now() < this.retryAt) return this.passUncounted(amount, windowMs);
    let answer: HitResult | Promise<HitResult>;
    try {
      answer = this.inner.hit(bucket, client, amount, windowMs);
    } catch (err) {
      this.failed(err);
      return this.passUncounted(amount, windowMs);
    }
    if (!(answer instanceof Promise)) return this.succeeded(answer);
    return answer.then(
      (result) => this.succeeded(result),
      (err: unknown) => {
        this.failed(err);
        return this.passUncounted(amount, windowMs);
      },
    );
  }

  stats(): MeterStoreStats {
    return {
      backend: this.inner.stats().backend,
      failures: this.failures,
      failOpenHits: this.failOpenHits,
      healthy: !this.failing,
    };
  }

  override async close(): Promise<void> {
    await this.inner.close();
  }

  private passUncounted(amount: number, windowMs: number): HitResult {
    this.failOpenHits++;
    return { total: Math.max(0, amount), msToReset: windowMs, degraded: true };
  }

  private succeeded(result: HitResult): HitResult {
    if (this.failing) this.recovered();
    return result;
  }

  private failed(err: unknown): void {
    this.failures++;
    const now = this.now();
    this.failing = true;
    this.retryAt = now + this.cooldownMs;
    if (now - this.lastWarnAt < this.logEveryMs) {
      this.unreported++;
      return;
    }
    const more =
      this.unreported > 0 ? ` (${this.unreported} more failures since the last report)` : '';
    this.log.warn(
      `metering store failed, serving unmetered: ${(err as Error)?.message ?? String(err)}${more}`,
    );
    this.lastWarnAt = now;
    this.unreported = 0;
  }

  private recovered(): void {
    this.failing = false;
    this.log.log(
      `metering store answers again; counting resumed (${this.failures} failures so far)`,
    );
  }
}
