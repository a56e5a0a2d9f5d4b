import { Gauge, Registry } from 'prom-client';
import type { Localnet } from './localnet';

/** The embedded local network's slot and transaction count, read when scraped. */
export function registerLocalnetMetrics(
  registry: Registry,
  network: Pick<Localnet, 'stats'>,
): void {
  new Gauge({
    name: 'tape_localnet_slot',
    help: 'Current slot of the embedded local network.',
    registers: [registry],
    collect() {
      this.set(network.stats().slot);
    },
  });
  new Gauge({
    name: 'tape_localnet_transactions',
    help: 'Transactions processed by the embedded local network since genesis.',
    registers: [registry],
    collect() {
      this.set(network.stats().transactionCount);
    },
  });
}
