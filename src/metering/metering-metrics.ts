import { Counter, Gauge, Registry } from 'prom-client';
import { MeteringService } from './metering.service';

/** Metering's figures, read from MeteringService.stats() when scraped (nothing on the hot path). */
export function registerMeteringMetrics(registry: Registry, metering: MeteringService): void {
  const registers = [registry];
  new Gauge({
    name: 'tape_metering_store_healthy',
    help: 'Whether the metering store answers (0: Redis is down and requests are served unmetered).',
    registers,
    collect() {
      this.set(metering.stats().healthy ? 1 : 0);
    },
  });
  new Counter({
    name: 'tape_metering_refusals_total',
    help: 'Requests (and object byte charges) refused by metering, by budget.',
    labelNames: ['budget'] as const,
    registers,
    collect() {
      this.reset();
      for (const [budget, count] of Object.entries(metering.stats().refused)) {
        this.inc({ budget }, count);
      }
    },
  });
}
