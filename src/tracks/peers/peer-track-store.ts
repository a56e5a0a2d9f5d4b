import { randomBytes } from 'node:crypto';
import { Readable } from 'node:stream';
import {
  CHUNK_HASH_BYTES,
  rangeReadHex,
  chunkCount,
  storeKeyHex,
  verifyChunkList,
} from '../commitment';
import { readExactly } from '../durable-file';
import { failoverRange, RangeSource } from '../failover-range';
import { TrackCache } from '../s3/track-cache';
import { RemoteRangeStream } from '../s3/remote-range-stream';
import {
  IntegrityError,
  TrackNotFoundError,
  TrackStoreError,
  TrackStoreUnavailableError,
} from '../track-errors';
import { TrackIntegrityReport, TrackStoreStats } from '../track-store';
import { TrackStoreLedger } from '../track-store-ledger';
import { VerifiedChunkLists } from '../verified-chunk-lists';
import { PeerFailure, PeerFailureReason, PeerHttp, readExactBody } from './peer-http';
import { PeerSet } from './peer-set';
import { UnreferencedTrackStore } from './unreferenced-track-store';

/**
 * The largest track asked of a peer: a blob or segment is at most `storage.segment_bytes`
 * (1 GiB at most), a manifest at most 64 MiB. So a chunk list is at most 512 KiB, and a peer
 * claiming a larger size (HEAD) is not believed.
 */
export const MAX_PEER_TRACK_BYTES = 1024 * 1024 * 1024;

export interface PeerTrackStoreOptions {
  /** Base URLs of peer gateways, asked in this order (`storage.tracks.peers`). */
  peers: readonly string[];
  timeoutMs: number;
  retryAfterMs: number;
  /** The verified local cache (`<data_dir>/track-cache`). */
  cache: TrackCache;
}

/**
 * Track bytes fetched from peer gateways (`GET /tracks/{hex}` with Range, `/tracks/{hex}/chunks`;
 * docs/peers.md) by a reader with no store of its own. Peers are trusted for nothing: a chunk
 * list must match the commitment the caller took from the chain, every chunk its hash, before a
 * byte is served; a peer that lies, answers the wrong length, fails or stalls is left for the
 * next one (failoverRange continues from the first byte not yet sent) and counted
 * (`peerFailures`). Verified whole tracks enter the local cache, whose files are hashed again
 * on every read (a damaged one is dropped, counted in `cacheMismatches`, and read from peers).
 * A reader stores nothing and collects nothing: put is refused, the reference index is empty.
 */
export class PeerTrackStore extends UnreferencedTrackStore {
  readonly peers: PeerSet;
  private readonly http: PeerHttp;
  private readonly chunkLists = new VerifiedChunkLists();
  private readonly ledger = new TrackStoreLedger();
  private cacheMismatches = 0;

  constructor(
    private readonly options: PeerTrackStoreOptions,
    http?: PeerHttp,
  ) {
    super();
    if (options.peers.length === 0) throw new Error('no peer gateway given');
    this.peers = new PeerSet(options.peers, options.retryAfterMs);
    this.http = http ?? new PeerHttp(options.timeoutMs);
  }

  get cache(): TrackCache {
    return this.options.cache;
  }

  async init(): Promise<void> {
    await this.cache.init();
  }

  /** Whether this reader holds the track itself (a peer's request is answered only then). */
  holdsLocally(commitment: Buffer): boolean {
    return this.cache.lookup(storeKeyHex(commitment)) !== undefined;
  }

  async has(commitment: Buffer): Promise<boolean> {
    return (await this.storedSize(commitment)) !== undefined;
  }

  /** The cached track's size, else the first peer's answer to HEAD (untrusted, bounded). */
  async storedSize(commitment: Buffer): Promise<number | undefined> {
    const hex = storeKeyHex(commitment);
    const cached = this.cache.lookup(hex);
    if (cached !== undefined) return cached;
    const failures: PeerFailure[] = [];
    for (const peer of this.peers.order()) {
      try {
        const answer = await this.http.request(peer.base, `tracks/${hex}`, hex, { method: 'HEAD' });
        answer.body.resume();
        if (answer.status === 404) throw new PeerFailure(peer.name, 'missing', hex, 'answers 404');
        if (answer.status !== 200) {
          throw new PeerFailure(peer.name, 'status', hex, `answers ${answer.status}`);
        }
        const size = Number(answer.headers['content-length']);
        if (!Number.isSafeInteger(size) || size < 0 || size > MAX_PEER_TRACK_BYTES) {
          throw new PeerFailure(peer.name, 'wrong_length', hex, 'answers no usable length');
        }
        if (this.chunkLists.get(hex, size)) return size;
        // The size is believed once the same peer's chunk list, hashed with it, gives the
        // commitment (the commitment binds the size): a lying length is that peer's failure,
        // not a 502 while an honest peer remains. The list is needed next anyway.
        await this.listFrom(peer, commitment, hex, size, 'wrong_length');
        return size;
      } catch (err) {
        failures.push(this.peerFailed(peer.name, hex, err));
      }
    }
    if (failures.every((f) => f.reason === 'missing')) return undefined;
    throw this.allFailed(hex, failures);
  }

  put(commitment: Buffer, _size: number, body: Readable): Promise<void> {
    body.destroy();
    return Promise.reject(
      new TrackStoreUnavailableError(
        storeKeyHex(commitment),
        new Error('a reader with peers stores nothing'),
      ),
    );
  }

  async readChunkHashes(commitment: Buffer, size: number): Promise<Buffer> {
    const hex = storeKeyHex(commitment);
    const known = this.chunkLists.get(hex, size);
    if (known) return known;
    if (size > MAX_PEER_TRACK_BYTES) {
      throw new TrackStoreUnavailableError(
        hex,
        new Error(`${size} bytes is more than a peer is asked for`),
      );
    }
    const expected = chunkCount(size) * CHUNK_HASH_BYTES;
    if (this.cache.lookup(hex) === size) {
      const hashes = await readExactly(this.cache.chunksPath(hex), expected).catch(() => undefined);
      if (hashes && verifyChunkList(commitment, size, hashes)) {
        this.chunkLists.remember(hex, size, hashes);
        return hashes;
      }
      await this.cacheMismatch(hex);
    }
    const failures: PeerFailure[] = [];
    for (const peer of this.peers.order()) {
      try {
        return await this.listFrom(peer, commitment, hex, size, 'bad_chunk_list');
      } catch (err) {
        failures.push(this.peerFailed(peer.name, hex, err));
      }
    }
    throw this.allFailed(hex, failures);
  }

  /**
   * One peer's chunk list for `size`, checked against the commitment and remembered; a list
   * that does not hash to it is the peer's `lie` (a bad list, or a wrong length it gave).
   */
  private async listFrom(
    peer: { base: string; name: string },
    commitment: Buffer,
    hex: string,
    size: number,
    lie: PeerFailureReason,
  ): Promise<Buffer> {
    const answer = await this.http.request(peer.base, `tracks/${hex}/chunks`, hex);
    if (answer.status !== 200) {
      answer.body.resume();
      const reason = answer.status === 404 ? 'missing' : 'status';
      throw new PeerFailure(peer.name, reason, hex, `answers ${answer.status}`);
    }
    const expected = chunkCount(size) * CHUNK_HASH_BYTES;
    const hashes = await readExactBody(answer, expected, peer.name, hex);
    if (!verifyChunkList(commitment, size, hashes)) {
      throw new PeerFailure(
        peer.name,
        lie,
        hex,
        `chunk list fails the commitment at ${size} bytes`,
      );
    }
    this.chunkLists.remember(hex, size, hashes);
    return hashes;
  }

  openRange(commitment: Buffer, size: number, start: number, endInclusive: number): Readable {
    const hex = rangeReadHex(commitment, size, start, endInclusive);
    const cached = this.cache.lookup(hex) === size;
    // After the chunk list is read: a peer that failed it is asked last for the bytes too.
    const sources = (): RangeSource[] => [
      ...(cached ? [this.cacheSource(commitment, hex, size)] : []),
      ...this.peers.order().map((peer) => this.peerSource(commitment, hex, size, peer)),
    ];
    const whole = start === 0 && endInclusive === size - 1;
    const temp = this.cache.tempPath(hex, `${randomBytes(6).toString('hex')}.fill`);
    return failoverRange({
      track: hex,
      start,
      endInclusive,
      before: () => this.readChunkHashes(commitment, size),
      sources,
      ...(!cached &&
        whole &&
        this.cache.fits(size) && {
          fill: {
            tempPath: temp,
            admit: () => this.cache.admit(hex, temp, size, this.chunkLists.get(hex, size)!),
          },
        }),
    });
  }

  /** The cached file, every chunk hashed again: a changed byte drops the copy (and is counted). */
  private cacheSource(commitment: Buffer, hex: string, size: number): RangeSource {
    return this.cache.rangeSource({
      hex,
      size,
      chunkHashes: () => this.readChunkHashes(commitment, size),
      counters: this.ledger.counters,
      verify: true,
      failed: (err) => {
        if (err instanceof IntegrityError) void this.cacheMismatch(hex);
        else void this.cache.evict(hex);
      },
    });
  }

  private peerSource(
    commitment: Buffer,
    hex: string,
    size: number,
    peer: { base: string; name: string },
  ): RangeSource {
    return {
      name: peer.name,
      open: (from, to) =>
        new RemoteRangeStream({
          track: hex,
          size,
          start: from,
          endInclusive: to,
          chunkHashes: () => this.readChunkHashes(commitment, size),
          fetch: async (a, b) => ({ body: await this.peerBytes(peer, hex, size, a, b) }),
          counters: this.ledger.counters,
        }),
      failed: (err) => void this.peerFailed(peer.name, hex, err),
    };
  }

  /** A ranged GET of a peer's copy: 206 (or 200 for the whole track) of exactly that length. */
  private async peerBytes(
    peer: { base: string; name: string },
    hex: string,
    size: number,
    from: number,
    to: number,
  ): Promise<Readable> {
    const answer = await this.http.request(peer.base, `tracks/${hex}`, hex, { range: [from, to] });
    const whole = from === 0 && to === size - 1;
    if (answer.status !== 206 && !(answer.status === 200 && whole)) {
      answer.body.resume();
      const reason = answer.status === 404 ? 'missing' : 'status';
      throw new PeerFailure(peer.name, reason, hex, `answers ${answer.status}`);
    }
    const length = Number(answer.headers['content-length']);
    if (length !== to - from + 1) {
      answer.body.destroy();
      throw new PeerFailure(
        peer.name,
        'wrong_length',
        hex,
        `answers ${length} bytes, not ${to - from + 1}`,
      );
    }
    return answer.body;
  }

  /** Counts why a peer was left, and returns it as a PeerFailure. */
  private peerFailed(name: string, hex: string, err: unknown): PeerFailure {
    // A body that failed mid-read arrives wrapped (RemoteRangeStream: store unavailable).
    const inner = (err as { cause?: unknown } | undefined)?.cause;
    const failure =
      err instanceof PeerFailure
        ? err
        : inner instanceof PeerFailure
          ? inner
          : new PeerFailure(name, reasonOf(err), hex, (err as Error)?.message ?? String(err));
    this.peers.failed(name, failure.reason, hex, failure.message);
    return failure;
  }

  /** Every peer failed: a lie is a 502 (integrity), none holding it 404, else 503. */
  private allFailed(hex: string, failures: PeerFailure[]): TrackStoreError {
    const lie = failures.find((f) => LIES.has(f.reason));
    if (lie) {
      this.ledger.noteCorrupt(hex);
      return new IntegrityError(hex, `every peer failed (${lie.message})`);
    }
    if (failures.length > 0 && failures.every((f) => f.reason === 'missing')) {
      return new TrackNotFoundError(hex);
    }
    return new TrackStoreUnavailableError(
      hex,
      new Error(`every peer failed: ${failures.map((f) => f.message).join('; ')}`),
    );
  }

  private async cacheMismatch(hex: string): Promise<void> {
    this.cacheMismatches++;
    this.chunkLists.forget(hex);
    await this.cache.evict(hex);
  }

  async remove(commitment: Buffer): Promise<boolean> {
    const hex = storeKeyHex(commitment);
    const held = this.cache.lookup(hex) !== undefined;
    await this.cache.evict(hex);
    return held;
  }

  stats(): Promise<TrackStoreStats> {
    return Promise.resolve({
      ...this.ledger.stats('peers'),
      cacheMismatches: this.cacheMismatches,
      peerFailures: this.peers.report(),
    });
  }

  integrity(): TrackIntegrityReport {
    return this.ledger.integrity();
  }

  /**
   * Ready while the cache directory is usable: what it holds is served whatever the peers do,
   * and a request they cannot serve answers 502/503 on its own.
   */
  async checkHealth(): Promise<void> {
    await this.cache.init();
  }

  cacheReport(): { tracks: number; bytes: number; max_bytes: number; mismatches: number } {
    return {
      tracks: this.cache.tracks,
      bytes: this.cache.bytes,
      max_bytes: this.cache.maxBytes,
      mismatches: this.cacheMismatches,
    };
  }

  close(): void {
    this.http.close();
  }
}

const LIES = new Set<PeerFailureReason>(['bad_bytes', 'bad_chunk_list', 'wrong_length']);

function reasonOf(err: unknown): PeerFailureReason {
  if (err instanceof IntegrityError) return 'bad_bytes';
  if (err instanceof TrackNotFoundError) return 'missing';
  return 'unreachable';
}
