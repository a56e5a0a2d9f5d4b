import { Counter, Gauge, Registry } from 'prom-client';
import { TrackStore } from './track-store';

/** Track store counters, read from TrackStore.stats() when scraped (the store counts anyway). */
export function registerTrackStoreMetrics(registry: Registry, store: TrackStore): void {
  const registers = [registry];
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
