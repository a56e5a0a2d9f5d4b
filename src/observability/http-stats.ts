import type { Registry } from 'prom-client';

/** Seconds: a cached site page answers in well under a millisecond, an upload in minutes. */
export const LATENCY_BUCKETS = [
  0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 120,
];

const STATUS_CLASSES = ['1xx', '2xx', '3xx', '4xx', '5xx'] as const;

interface Slot {
  labels: { listener: string; kind: string };
  byStatus: number[];
  /** Per bucket (not cumulative), plus one past the last bound (+Inf). */
  buckets: number[];
  sum: number;
  count: number;
  bytes: number;
}

interface MetricValue {
  value: number;
  labels: Record<string, string | number>;
  metricName?: string;
}

/**
 * Request counts, latency and bytes per (listener, kind), kept in plain numbers: recording a
 * request is a map lookup and a few adds (prom-client's labelled observe hashes its labels on
 * every call, about 2 µs, as much as a tenth of a cached site page). The registry reads them
 * when scraped, as three ordinary Prometheus metrics:
 * `tape_http_requests_total`, `tape_http_request_duration_seconds`, `tape_http_response_bytes_total`.
 */
export class HttpStats {
  /** Per listener, per kind: looked up by the callers' own strings, no key built per request. */
  private readonly byListener = new Map<string, Map<string, Slot>>();
  /** Every slot, in the order they were first observed. */
  private readonly slots: Slot[] = [];
  /** The slot observed last: a busy listener records one kind after another (no lookup). */
  private last: Slot | undefined;

  observe(listener: string, kind: string, status: number, seconds: number, bytes: number): void {
    const last = this.last;
    const slot =
      last !== undefined && last.labels.kind === kind && last.labels.listener === listener
        ? last
        : (this.last = this.slotOf(listener, kind));
    const statusIndex = status >= 500 ? 4 : status < 100 ? 0 : ((status / 100) | 0) - 1;
    slot.byStatus[statusIndex]++;
    let b = 0;
    while (b < LATENCY_BUCKETS.length && seconds > LATENCY_BUCKETS[b]) b++;
    slot.buckets[b]++;
    slot.sum += seconds;
    slot.count++;
    if (bytes > 0) slot.bytes += bytes;
  }

  private slotOf(listener: string, kind: string): Slot {
    let kinds = this.byListener.get(listener);
    if (kinds === undefined) this.byListener.set(listener, (kinds = new Map()));
    let slot = kinds.get(kind);
    if (slot === undefined) {
      slot = {
        labels: { listener, kind },
        byStatus: [0, 0, 0, 0, 0],
        buckets: new Array<number>(LATENCY_BUCKETS.length + 1).fill(0),
        sum: 0,
        count: 0,
        bytes: 0,
      };
      kinds.set(kind, slot);
      this.slots.push(slot);
    }
    return slot;
  }

  /** Registers the three metrics (read-only views of this object) in `registry`. */
  register(registry: Registry): void {
    const metric = (name: string, help: string, type: string, values: () => MetricValue[]) =>
      registry.registerMetric({
        name,
        help,
        type,
        get: () => Promise.resolve({ name, help, type, values: values(), aggregator: 'sum' }),
        reset: () => undefined,
      } as unknown as Parameters<Registry['registerMetric']>[0]);
    metric(
      'tape_http_requests_total',
      'Requests answered, by listener, route kind and status class.',
      'counter',
      () =>
        this.slots.flatMap((slot) =>
          STATUS_CLASSES.map((status_class, i) => ({
            value: slot.byStatus[i],
            labels: { ...slot.labels, status_class },
          })),
        ),
    );
    metric(
      'tape_http_request_duration_seconds',
      'Time from request to the end of its answer, by listener and route kind.',
      'histogram',
      () =>
        this.slots.flatMap((slot) => {
          const out: MetricValue[] = [];
          let cumulative = 0;
          LATENCY_BUCKETS.forEach((le, i) => {
            cumulative += slot.buckets[i];
            out.push({
              metricName: 'tape_http_request_duration_seconds_bucket',
              labels: { le, ...slot.labels },
              value: cumulative,
            });
          });
          out.push({
            metricName: 'tape_http_request_duration_seconds_bucket',
            labels: { le: '+Inf', ...slot.labels },
            value: slot.count,
          });
          out.push({
            metricName: 'tape_http_request_duration_seconds_sum',
            labels: slot.labels,
            value: slot.sum,
          });
          out.push({
            metricName: 'tape_http_request_duration_seconds_count',
            labels: slot.labels,
            value: slot.count,
          });
          return out;
        }),
    );
    metric(
      'tape_http_response_bytes_total',
      'Bytes sent in answers (status line, headers and body), by listener and route kind.',
      'counter',
      () => this.slots.map((slot) => ({ value: slot.bytes, labels: slot.labels })),
    );
  }
}
