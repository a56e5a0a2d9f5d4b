import { Gauge, Registry } from 'prom-client';
import type { HealthReport } from '../health/health-registry';

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
