import { Injectable, Optional } from '@nestjs/common';
import { Counter, Gauge, Registry } from 'prom-client';
import { TxtBindingService } from '../domains/txt-binding.service';
import { MeteringService } from '../metering/metering.service';
import { TrackStore } from '../tracks/track-store';
import { HealthRegistry } from '../health/health-registry';
import { registerHealthChecks, registerKeyBalance, KeyBalanceReport } from './health-metrics';
import { HttpStats } from './http-stats';
import { enableDefaultMetrics, processRegistry, setRpcRequestObserver } from './process-metrics';
import type { RouteKind } from './route-kind';

export type ListenerName = 'main' | 's3' | 'admin' | 'rpc';

/** What the upload room reports of its slots (`storage.uploads.*`), read when scraped. */
export interface UploadSlotsReport {
  inProgress: number;
  refused: { client: number; tape: number };
}

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
  private readonly http = new HttpStats();

  constructor(
    @Optional() metering?: MeteringService,
    @Optional() store?: TrackStore,
    @Optional() bindings?: TxtBindingService,
    @Optional() health?: HealthRegistry,
  ) {
    enableDefaultMetrics();
    const registers = [this.registry];
    this.http.register(this.registry);
    // The embedded local network's JSON-RPC listener (same process) counts as kind `rpc`.
    setRpcRequestObserver((status, seconds, bytes) =>
      this.observe('rpc', 'rpc', status, seconds, bytes),
    );
    if (metering) registerMetering(registers, metering);
    if (store) registerTrackStore(registers, store);
    if (bindings) registerBindings(registers, bindings);
    if (health) registerHealthChecks(registers, () => health.check());
  }

  /** The storage-authority key's balance and threshold (the key-balance room calls it). */
  registerKeyBalance(report: () => Promise<KeyBalanceReport>): void {
    registerKeyBalance([this.registry], report);
  }

  /** One answered request. */
  observe(
    listener: ListenerName,
    kind: RouteKind,
    status: number,
    seconds: number,
    bytes: number,
  ): void {
    this.http.observe(listener, kind, status, seconds, bytes);
  }

  /** Uploads in progress and the uploads refused for want of a slot (the upload room calls it). */
  registerUploads(report: () => UploadSlotsReport): void {
    const registers = [this.registry];
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

  /**
   * TLS asks refused, by reason (the admin room calls it): operators alert on `rate-limited`
   * (something is asking for many new names) and `unavailable` (the chain cannot be read).
   */
  registerTlsAsks(report: () => { approved: number; refused: Record<string, number> }): void {
    const registers = [this.registry];
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

  /** The Prometheus text of this app and of the process. */
  async text(): Promise<string> {
    return Registry.merge([processRegistry, this.registry]).metrics();
  }

  get contentType(): string {
    return this.registry.contentType;
  }
}

function registerMetering(registers: Registry[], metering: MeteringService): void {
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
  new Counter({
    name: 'tape_track_cache_mismatches_total',
    help: 'Verified copies on local disk that failed their check when read again (dropped, fetched again).',
    registers,
    async collect() {
      const s = await stats();
      if (s?.cacheMismatches === undefined) return;
      this.reset();
      this.inc(s.cacheMismatches);
    },
  });
  new Counter({
    name: 'tape_peer_failures_total',
    help: 'Peer gateways left for the next one, by peer origin and reason (docs/peers.md).',
    labelNames: ['peer', 'reason'] as const,
    registers,
    async collect() {
      const s = await stats();
      if (!s?.peerFailures) return;
      this.reset();
      for (const f of s.peerFailures) this.inc({ peer: f.peer, reason: f.reason }, f.count);
    },
  });
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
