import { Counter, Gauge, Registry } from 'prom-client';

/** What the upload slots report (`storage.uploads.*`), read when scraped. */
export interface UploadSlotsReport {
  inProgress: number;
  refused: { client: number; tape: number };
}

/** Uploads in progress and the uploads refused for want of a slot, read when scraped. */
export function registerUploadMetrics(registry: Registry, report: () => UploadSlotsReport): void {
  const registers = [registry];
  new Gauge({
    name: 'tape_uploads_in_progress',
    help: 'Uploads holding a slot: their body is being received, stored or certified.',
    registers,
    collect() {
      this.set(report().inProgress);
    },
  });
  new Counter({
    name: 'tape_upload_slot_refusals_total',
    help: 'Uploads refused with 429 because the client or the tape had its limit in progress.',
    labelNames: ['scope'] as const,
    registers,
    collect() {
      const { refused } = report();
      this.reset();
      this.inc({ scope: 'client' }, refused.client);
      this.inc({ scope: 'tape' }, refused.tape);
    },
  });
}
