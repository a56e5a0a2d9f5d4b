import { Injectable, Optional } from '@nestjs/common';
import { Counter, Gauge, Histogram, Registry } from 'prom-client';
import { TxtBindingService } from '../domains/txt-binding.service';
import { MeteringService } from '../metering/metering.service';
import { TrackStore } from '../tracks/track-store';
import { enableDefaultMetrics, processRegistry, setRpcRequestObserver } from './process-metrics';
import type { RouteKind } from './route-kind';

export type ListenerName = 'main' | 's3' | 'admin' | 'rpc';

/** Seconds: a cached site page answers in well under a millisecond, an upload in minutes. */
const LATENCY_BUCKETS = [
  0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 120,
];

const STATUS_CLASSES = ['1xx', '2xx', '3xx', '4xx', '5xx'] as const;

/**
 * The gateway app's metrics, in its own registry (tests run several apps in one process);
 * `/metrics` serves it merged with the process registry. Labels are bounded: listener, route
 * kind, status class, budget, outcome — never a tape, host or client address.
 *
 * Counters kept elsewhere (metering refusals, track store and DNS binding cache counts) are
 * read when scraped, so nothing is added to those paths.
 */
@Injectable()
export class GatewayMetrics {
  readonly registry = new Registry();
  private readonly requests: Counter<'listener' | 'kind' | 'status_class'>;
  private readonly seconds: Histogram<'listener' | 'kind'>;
  private readonly bytes: Counter<'listener' | 'kind'>;
  /** Pre-bound children: the per-request cost is one lookup and an add. */
  private readonly children = new Map<
    string,
    {
      seconds: Histogram.Internal<'listener' | 'kind'>;
      bytes: Counter.Internal;
      byStatus: Counter.Internal[];
    }
  >();

  constructor(
    @Optional() metering?: MeteringService,
    @Optional() store?: TrackStore,
    @Optional() bindings?: TxtBindingService,
  ) {
    enableDefaultMetrics();
    const registers = [this.registry];
    this.requests = new Counter({
      name: 'tape_http_requests_total',
      help: 'Requests answered, by listener, route kind and status class.',
      labelNames: ['listener', 'kind', 'status_class'] as const,
      registers,
    });
    this.seconds = new Histogram({
      name: 'tape_http_request_duration_seconds',
      help: 'Time from request to the end of its answer, by listener and route kind.',
      labelNames: ['listener', 'kind'] as const,
      buckets: LATENCY_BUCKETS,
      registers,
    });
    this.bytes = new Counter({
      name: 'tape_http_response_bytes_total',
      help: 'Bytes sent in answers (status line, headers and body), by listener and route kind.',
      labelNames: ['listener', 'kind'] as const,
      registers,
    });
    // The embedded local network's JSON-RPC listener (same process) counts as kind `rpc`.
    setRpcRequestObserver((status, seconds, bytes) =>
      this.observe('rpc', 'rpc', status, seconds, bytes),
    );
    if (metering) registerMetering(registers, metering);
    if (store) registerTrackStore(registers, store);
    if (bindings) registerBindings(registers, bindings);
  }

  /** One answered request. */
  observe(
    listener: ListenerName,
    kind: RouteKind,
    status: number,
    seconds: number,
    bytes: number,
  ): void {
    const key = `${listener}:${kind}`;
    let child = this.children.get(key);
    if (child === undefined) {
      const labels = { listener, kind };
      child = {
        seconds: this.seconds.labels(labels),
        bytes: this.bytes.labels(labels),
        byStatus: STATUS_CLASSES.map((status_class) =>
          this.requests.labels({ ...labels, status_class }),
        ),
      };
      this.children.set(key, child);
    }
    const statusIndex = Math.min(Math.max(Math.floor(status / 100), 1), 5) - 1;
    child.byStatus[statusIndex].inc();
    child.seconds.observe(seconds);
    if (bytes > 0) child.bytes.inc(bytes);
  }

  /** The Prometheus text of this app and of the process. */
  async text(): Promise<string> {
    return Registry.merge([processRegistry, this.registry]).metrics();
  }

  get contentType(): string {
    return this.registry.contentType;
  }
}

function registerMetering(registers: Registry[], metering: MeteringService): void {
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

/** Track store counters, read from TrackStore.stats() when scraped (src/tracks is not touched). */
function registerTrackStore(registers: Registry[], store: TrackStore): void {
  const counters: [string, string, (s: Awaited<ReturnType<TrackStore['stats']>>) => number][] = [
    ['tape_track_store_puts_total', 'Tracks stored since start.', (s) => s.puts],
    [
      'tape_track_store_rejected_puts_total',
      'Track writes refused (size, commitment, interrupted).',
      (s) => s.rejectedPuts,
    ],
    [
      'tape_track_store_written_bytes_total',
      'Track bytes written since start.',
      (s) => s.bytesWritten,
    ],
    [
      'tape_track_store_read_bytes_total',
      'Track bytes read from storage since start.',
      (s) => s.bytesRead,
    ],
    [
      'tape_track_store_chunks_verified_total',
      'Chunks verified against their commitment.',
      (s) => s.chunksVerified,
    ],
    [
      'tape_track_store_integrity_failures_total',
      'Chunks that failed verification.',
      (s) => s.integrityFailures,
    ],
    [
      'tape_track_store_gc_collected_tracks_total',
      'Blobs deleted by the garbage collector.',
      (s) => s.collectedTracks,
    ],
    [
      'tape_track_store_gc_collected_bytes_total',
      'Bytes deleted by the garbage collector.',
      (s) => s.collectedBytes,
    ],
  ];
  let pending: Promise<Awaited<ReturnType<TrackStore['stats']>> | undefined> | undefined;
  // One stats() call per scrape, shared by every metric below.
  const stats = () => {
    pending ??= store.stats().then(
      (s) => s,
      () => undefined,
    );
    const current = pending;
    setImmediate(() => {
      if (pending === current) pending = undefined;
    });
    return current;
  };
  for (const [name, help, read] of counters) {
    new Counter({
      name,
      help,
      registers,
      async collect() {
        const s = await stats();
        if (!s) return;
        this.reset();
        this.inc(read(s));
      },
    });
  }
  new Gauge({
    name: 'tape_track_store_free_bytes',
    help: 'Space left on the track store volume (when the backend knows it).',
    registers,
    async collect() {
      const s = await stats();
      if (s?.freeBytes !== undefined) this.set(s.freeBytes);
    },
  });
}

function registerBindings(registers: Registry[], bindings: TxtBindingService): void {
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
