import { Counter, Registry } from 'prom-client';

/**
 * TLS asks approved, and refused by reason: operators alert on `rate-limited` (something is
 * asking for many new names) and `unavailable` (the chain cannot be read).
 */
export function registerTlsAskMetrics(
  registry: Registry,
  report: () => { approved: number; refused: Record<string, number> },
): void {
  const registers = [registry];
  new Counter({
    name: 'tape_tls_ask_approvals_total',
    help: 'On-demand TLS asks approved: names that serve an active tape or an operator domain.',
    registers,
    collect() {
      this.reset();
      this.inc(report().approved);
    },
  });
  new Counter({
    name: 'tape_tls_ask_refusals_total',
    help: 'On-demand TLS asks refused, by reason (invalid, no-site, no-tape, expired, rate-limited, unavailable).',
    labelNames: ['reason'] as const,
    registers,
    collect() {
      this.reset();
      for (const [reason, count] of Object.entries(report().refused)) this.inc({ reason }, count);
    },
  });
}
