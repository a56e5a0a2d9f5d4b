import { Gauge, Registry } from 'prom-client';

/** What the key-balance room reports when scraped (a reading older than its refresh is renewed). */
export interface KeyBalanceReport {
  /** Undefined when the chain could not be read. */
  lamports: number | undefined;
  thresholdLamports: number;
}

/** The storage-authority key's balance and the threshold /healthz compares it with. */
export function registerKeyBalanceMetrics(
  registry: Registry,
  report: () => Promise<KeyBalanceReport>,
): void {
  const registers = [registry];
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
