import { Gauge, Registry } from 'prom-client';
import type { HealthReport } from '../health/health-registry';

/** What the key-balance room reports when scraped (a reading older than its refresh is renewed). */
export interface KeyBalanceReport {
  /** Undefined when the chain could not be read. */
  lamports: number | undefined;
  thresholdLamports: number;
}

/**
 * `tape_health_check_ok{check}`: each /healthz probe and warning as 1 or 0, run when scraped
 * (each bounded like /healthz), so alert rules see the track store, the chain, shared state and
 * the key's balance without a second prober.
 */
export function registerHealthChecks(registers: Registry[], check: () => Promise<HealthReport>) {
  new Gauge({
    name: 'tape_health_check_ok',
    help: 'Each /healthz check: 1 when it is ok, 0 when it fails or warns (the reason is in /healthz).',
    labelNames: ['check'] as const,
    registers,
    async collect() {
      const report = await check();
      this.reset();
      for (const [name, text] of Object.entries(report.checks)) {
        this.set({ check: name }, text === 'ok' ? 1 : 0);
      }
    },
  });
}

/** The storage-authority key's balance and the threshold /healthz compares it with. */
export function registerKeyBalance(registers: Registry[], report: () => Promise<KeyBalanceReport>) {
  let pending: Promise<KeyBalanceReport> | undefined;
  // One reading per scrape, shared by both gauges.
  const read = () => {
    pending ??= report().finally(() => setImmediate(() => (pending = undefined)));
    return pending;
  };
  new Gauge({
    name: 'tape_storage_authority_balance_lamports',
    help: "The storage-authority key's SOL balance in lamports (it pays certification and S3 write fees).",
    registers,
    async collect() {
      const { lamports } = await read();
      if (lamports !== undefined) this.set(lamports);
    },
  });
  new Gauge({
    name: 'tape_storage_authority_threshold_lamports',
    help: 'Below this balance /healthz is degraded: an hour of expected fees (gateway.key_balance).',
    registers,
    async collect() {
      this.set((await read()).thresholdLamports);
    },
  });
}
