import { Counter, Gauge, Registry } from 'prom-client';
import { TxtBindingService } from './txt-binding.service';

/** DNS TXT binding lookups and cache entries, read from TxtBindingService.stats() when scraped. */
export function registerBindingMetrics(registry: Registry, bindings: TxtBindingService): void {
  const registers = [registry];
  new Counter({
    name: 'tape_dns_binding_lookups_total',
    help: 'DNS TXT binding lookups by result: hit (cached), miss (asked DNS), failure (DNS failed).',
    labelNames: ['result'] as const,
    registers,
    collect() {
      const s = bindings.stats();
      this.reset();
      this.inc({ result: 'hit' }, s.hits);
      this.inc({ result: 'miss' }, s.lookups);
      this.inc({ result: 'failure' }, s.failures);
    },
  });
  new Gauge({
    name: 'tape_dns_binding_cache_entries',
    help: 'DNS binding cache entries, by kind (bound names, cached misses).',
    labelNames: ['kind'] as const,
    registers,
    collect() {
      const s = bindings.stats();
      this.set({ kind: 'bound' }, s.bindings);
      this.set({ kind: 'unbound' }, s.misses);
    },
  });
}
