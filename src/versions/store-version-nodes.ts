import { ByteLru } from '../tracks/byte-lru';
import { TrackNotFoundError } from '../tracks/track-errors';
import { TrackStore } from '../tracks/track-store';
import { StoreVersionHoldings } from './store-version-holdings';
import { TreeNode, VersionRoot } from './version-nodes';
import { VersionNodeCache, VersionNodeSource, VersionReader } from './version-reader';

/** Decoded nodes kept per gateway: immutable, so shared by every version that holds them. */
const DEFAULT_CACHE_BYTES = 32 * 1024 * 1024;
/** Decoded entries weigh about this many times their encoding (objects, strings, Buffers). */
const DECODED_WEIGHT = 4;

interface Weighted {
  value: TreeNode | VersionRoot;
  byteLength: number;
}

/**
 * Version nodes read from the gateway's own track store, verified like every track, and kept
 * decoded in one LRU by commitment (docs/versions.md, "Serving and invalidation").
 */
export class StoreVersionNodes extends VersionNodeSource implements VersionNodeCache {
  private readonly holdings: StoreVersionHoldings;
  private readonly cache: ByteLru<Weighted>;
  private readonly lengths = new Map<string, number>();

  constructor(
    private readonly store: TrackStore,
    cacheBytes = DEFAULT_CACHE_BYTES,
  ) {
    super();
    this.holdings = new StoreVersionHoldings(store);
    this.cache = new ByteLru<Weighted>(cacheBytes);
  }

  read(commitment: Buffer, bytes: number): Promise<Buffer> {
    this.lengths.set(commitment.toString('hex'), bytes);
    return this.holdings.readTrack(commitment, bytes);
  }

  get(key: string): TreeNode | VersionRoot | undefined {
    return this.cache.get(key)?.value;
  }

  set(key: string, value: TreeNode | VersionRoot): void {
    const bytes = this.lengths.get(key) ?? 0;
    this.lengths.delete(key);
    this.cache.set(key, { value, byteLength: Math.max(1, bytes * DECODED_WEIGHT) });
  }

  /** A reader over this store and cache (cheap: make one per lookup). */
  reader(): VersionReader {
    return new VersionReader(this, this);
  }

  /**
   * A version's root by commitment alone: its length is the stored one, untrusted but bound by
   * the commitment (a wrong length fails verification).
   */
  async root(commitment: Buffer): Promise<VersionRoot> {
    const cached = this.get(commitment.toString('hex'));
    if (cached !== undefined && 'entryCount' in cached) return cached;
    const length = await this.store.storedSize(commitment);
    if (length === undefined) throw new TrackNotFoundError(commitment.toString('hex'));
    return this.reader().root(commitment, length);
  }
}
