import { PublicKey } from '@solana/web3.js';
import { TapeRecord } from '../chain/account-layouts';
import { ChainError } from '../chain/chain-error';
import { ChainReader } from '../chain/chain-reader';
import { commitmentToHex, etagOf } from '../tracks/commitment';
import { TrackRef } from '../tracks/object-reader';
import { ObjectHeaders, objectHeaders } from './object-route-headers';
import { objectErrors } from './object-errors';
import { TtlCache } from '../chain/ttl-cache';
import { IntegrityError, TrackStoreError } from '../tracks/track-errors';
import { VersionFormatError } from '../versions/version-entry';
import { StoreVersionNodes } from '../versions/store-version-nodes';
import { CommitEntry } from '../versions/version-nodes';
import { parseVersionedTrack, VersionedTrack } from './versioned-track';

/** A certified track, ready to serve: what the chain records and the headers it implies. */
export interface ServableTrack {
  address: string;
  tape: string;
  ref: TrackRef;
  commitmentHex: string;
  etag: string;
  headers: ObjectHeaders;
  /**
   * The verified payload of a small blob, once the reader has it in its hot cache. Weak: the
   * reader's cache alone decides how long it stays in memory; this only skips asking for it.
   */
  hot?: WeakRef<Buffer>;
  /** `Content-Digest` of the whole payload, once it was in memory. */
  digest?: string;
}

export interface TrackResolverOptions {
  /**
   * A tape's expiry can move (extend) and its pointer decides which files are served (a
   * version stops being kept two Publishes later), so its record is re-read this often.
   */
  tapeTtlMs: number;
  maxTracks: number;
  maxTapes: number;
  /** Monotonic milliseconds. */
  now: () => number;
}

export const DEFAULT_TRACK_RESOLVER_OPTIONS: TrackResolverOptions = {
  tapeTtlMs: 5 * 1000,
  maxTracks: 50_000,
  maxTapes: 10_000,
  now: () => performance.now(),
};

interface TapeState {
  /** Monotonic time at which the tape's expiry epoch starts (it is expired from then on). */
  expiresAt: number;
}

/**
 * Track address → a track that may be served, or the refusal: malformed address (400), unknown
 * track (404), not certified (400), expired tape (410), chain unreachable (503). Certified
 * records are cached for minutes; uncertified and unknown ones are never cached (they change
 * when an upload completes); tape expiry is re-read every few seconds.
 */
export class TrackResolver {
  private readonly options: TrackResolverOptions;
  private readonly tracks: TtlCache<ServableTrack>;
  private readonly tapes: TtlCache<TapeState>;

  constructor(
    private readonly chain: ChainReader,
    options: Partial<TrackResolverOptions> = {},
    /** Files of published versions (64-byte addresses); without it those are 404. */
    private readonly versions?: StoreVersionNodes,
  ) {
    this.options = { ...DEFAULT_TRACK_RESOLVER_OPTIONS, ...options };
    this.tracks = new TtlCache(this.options.maxTracks, this.options.now);
    this.tapes = new TtlCache(this.options.maxTapes, this.options.now);
  }

  /** The track when everything about it is cached and its tape is live; else use `resolve`. */
  peek(text: string): ServableTrack | undefined {
    const track = this.tracks.get(text);
    if (!track) return undefined;
    const tape = this.tapes.get(track.tape);
    return tape && this.options.now() < tape.expiresAt ? track : undefined;
  }

  async resolve(text: string): Promise<ServableTrack> {
    // Only valid addresses are ever cached, so a hit needs no parsing.
    let track = this.tracks.get(text);
    if (!track) {
      // Only base58(tape || commitment): track accounts (32-byte addresses) no longer exist.
      const versioned = parseVersionedTrack(text);
      if (!versioned) throw objectErrors.invalidAddress();
      track = await this.tracks.getOrLoad(text, () => this.loadVersioned(text, versioned));
    }
    const tape = await this.tapes.getOrLoad(track.tape, () => this.loadTape(track.tape));
    if (this.options.now() >= tape.expiresAt) throw objectErrors.tapeExpired();
    return track;
  }

  private async loadTape(tape: string): Promise<TapeState> {
    return (await this.readTape(tape)).state;
  }

  /** The tape's record and expiry (cached as the tape's state): one read of the tape account. */
  private async readTape(tape: string): Promise<{ record: TapeRecord; state: TapeState }> {
    const [record, config, chainNow] = await this.read(() =>
      Promise.all([
        this.chain.getTape(new PublicKey(tape)),
        this.chain.networkConfig(),
        this.chain.chainTime(),
      ]),
    );
    // The program never closes tapes; a track whose tape is gone has nothing to serve from.
    if (!record) throw objectErrors.notFound();
    const expiryStartsAt = config.genesisTime + record.expiryEpoch * config.epochDurationSecs;
    const state = { expiresAt: this.options.now() + (expiryStartsAt - chainNow) * 1000 };
    this.tapes.set(tape, state, this.options.tapeTtlMs);
    return { record, state };
  }

  /**
   * A file of a published version: certified when a version the tape keeps (its history
   * table: current, aliased and the newest `keep`, docs/versions.md) holds its commitment,
   * looked up in each kept version's commits tree, newest first (verified nodes from the
   * store; the nodes are cached by commitment, and versions share most of them). Cached only
   * as long as the tape's record, since a version can leave the kept set at any change.
   */
  private async loadVersioned(address: string, wanted: VersionedTrack): Promise<ServableTrack> {
    if (!this.versions) throw objectErrors.notFound();
    const { record } = await this.readTape(wanted.tape);
    // Newest first; versions with one root are looked up once, under the newest number.
    const kept: { root: Buffer; version: number }[] = [];
    for (let i = record.history.length - 1; i >= 0; i--) {
      const { root, version } = record.history[i];
      if (!kept.some((k) => k.root.equals(root))) kept.push({ root, version });
    }
    let entry: CommitEntry | undefined;
    let found = 0;
    try {
      for (const { root, version: number } of kept) {
        const version = await this.versions.root(root);
        entry = await this.versions.reader().lookupCommitment(version, wanted.commitment);
        found = number;
        if (entry) break;
      }
    } catch (err) {
      if (err instanceof VersionFormatError || err instanceof IntegrityError)
        throw objectErrors.integrityFailure();
      if (err instanceof TrackStoreError) throw objectErrors.contentMissing();
      throw err;
    }
    if (!entry) throw objectErrors.notCertified();
    const track = servableEntry(address, wanted.tape, entry, found);
    this.tracks.set(address, track, this.options.tapeTtlMs);
    return track;
  }

  private async read<T>(call: () => Promise<T>): Promise<T> {
    try {
      return await call();
    } catch (err) {
      if (err instanceof ChainError) throw objectErrors.chainUnavailable();
      throw err;
    }
  }
}

function servableEntry(
  address: string,
  tape: string,
  entry: CommitEntry,
  version: number,
): ServableTrack {
  const etag = etagOf(entry.commitment);
  const loc = entry.location;
  return {
    address,
    tape,
    ref:
      loc.kind === 'packed'
        ? { ...loc, commitment: entry.commitment, size: entry.size }
        : {
            kind: loc.kind === 'stream' ? 'manifest' : 'blob',
            commitment: entry.commitment,
            size: entry.size,
          },
    commitmentHex: commitmentToHex(entry.commitment),
    etag,
    headers: objectHeaders(entry.contentType, etag, {
      version,
      commitmentHex: commitmentToHex(entry.commitment),
    }),
  };
}
