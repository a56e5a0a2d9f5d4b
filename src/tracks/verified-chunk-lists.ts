import { ByteLru } from './byte-lru';

interface VerifiedChunkList {
  size: number;
  hashes: Buffer;
  byteLength: number;
}

/** 16 MiB of verified lists describes 32 GiB of hot track data. */
const DEFAULT_MAX_BYTES = 16 * 1024 * 1024;

/**
 * Chunk lists that matched their commitment, remembered in memory by track (an LRU bounded by
 * bytes), so a hot track's list is read and hashed once. A list counts only for the size it was
 * verified at: the commitment binds the size, so another size never finds it.
 */
export class VerifiedChunkLists {
  private readonly lists: ByteLru<VerifiedChunkList>;

  constructor(maxBytes = DEFAULT_MAX_BYTES) {
    this.lists = new ByteLru(maxBytes);
  }

  get(hex: string, size: number): Buffer | undefined {
    const known = this.lists.get(hex);
    return known && known.size === size ? known.hashes : undefined;
  }

  /** Only ever a list already checked against the track's commitment. */
  remember(hex: string, size: number, hashes: Buffer): void {
    this.lists.set(hex, { size, hashes, byteLength: hashes.length + 64 });
  }

  forget(hex: string): void {
    this.lists.delete(hex);
  }
}
