import type { MeterDecision } from './meter-decision';

/** A Fastify reply (`header`) or a Node ServerResponse (`setHeader`). */
export type HeaderSink =
  | { header(name: string, value: string): unknown }
  | { setHeader(name: string, value: string): unknown };

/**
 * `RateLimit-Limit`, `RateLimit-Remaining`, `RateLimit-Reset` (seconds) on every metered
 * response, plus `Retry-After` and `Cache-Control: no-store` on a refusal, so no cache in front
 * keeps the 429. Nothing when nothing was counted (metering off, store failing open): the
 * figures would be made up.
 */
export function setRateLimitHeaders(sink: HeaderSink, decision: MeterDecision): void {
  if (decision.degraded) return;
  const set =
    'header' in sink
      ? (name: string, value: string) => sink.header(name, value)
      : (name: string, value: string) => sink.setHeader(name, value);
  set('ratelimit-limit', String(decision.limit));
  set('ratelimit-remaining', String(decision.remaining));
  set('ratelimit-reset', String(decision.resetSecs));
  if (!decision.allowed) {
    set('retry-after', String(decision.retryAfterSecs));
    set('cache-control', 'no-store');
  }
}
