import type { MeterDecision } from './meter-decision';
import { decimalText } from '../http/decimal-text';

/** A Fastify reply (`header`) or a Node ServerResponse (`setHeader`). */
export type HeaderSink =
  | { header(name: string, value: string): unknown }
  | { setHeader(name: string, value: string): unknown };

/**
 * `RateLimit-Limit`, `RateLimit-Remaining`, `RateLimit-Reset` (seconds) on every metered
 * response, plus `Retry-After` and `Cache-Control: no-store` on a refusal, so no cache in front
 * keeps the 429. Nothing when nothing was counted (metering off, store failing open): the
 * figures would be made up.
 *
 * The figures are written with `decimalText`: `RateLimit-Remaining` is new on every answer
 * (http/decimal-text.ts says why that matters to the collector).
 *
 * Appended to `list` as name, value, name, value...: the raw form Node's `writeHead` takes, which
 * the site hot path builds without an object or a closure per request.
 */
export function appendRateLimitHeaders(list: string[], decision: MeterDecision): void {
  if (decision.degraded) return;
  list.push(
    'ratelimit-limit',
    decimalText(decision.limit),
    'ratelimit-remaining',
    decimalText(decision.remaining),
    'ratelimit-reset',
    decimalText(decision.resetSecs),
  );
  if (!decision.allowed) {
    list.push('retry-after', decimalText(decision.retryAfterSecs), 'cache-control', 'no-store');
  }
}

/** The headers of `appendRateLimitHeaders`, set on a reply or a response. */
export function setRateLimitHeaders(sink: HeaderSink, decision: MeterDecision): void {
  const list: string[] = [];
  appendRateLimitHeaders(list, decision);
  for (let i = 0; i < list.length; i += 2) {
    if ('header' in sink) sink.header(list[i], list[i + 1]);
    else sink.setHeader(list[i], list[i + 1]);
  }
}
