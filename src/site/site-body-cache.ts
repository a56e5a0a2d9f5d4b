import { promisify } from 'node:util';
import { brotliCompress, constants as zlib, gzip } from 'node:zlib';
import { ByteLru } from '../tracks/byte-lru';
import { ObjectReader } from '../tracks/object-reader';
import { Coding } from './content-coding';
import { SiteObject, trackRefOf } from './site-source';

const brotli = promisify(brotliCompress);
const gzipAsync = promisify(gzip);

/** Past this size brotli's slower levels cost more than they save, even cached. */
const BROTLI_HIGH_QUALITY_MAX_BYTES = 1024 * 1024;

/** A compressed variant must be at least this much smaller to be worth a second representation. */
const MIN_SAVING = 0.95;
const NOT_WORTH_LIMIT = 100000;

/**
 * Verified bodies of hot site objects in memory, bounded in bytes (`gateway.site.cache_bytes`):
 * the identity bytes and their compressed variants, keyed by commitment, so they never go stale
 * (a redeploy changes the commitment, not the bytes behind one). Bytes come from the object
 * reader, which verifies them against the commitment before handing them over. Concurrent
 * misses of one body share one read or one compression.
 *
 * `get*` are synchronous (the hot path); `load*` fill the cache.
 */
export class SiteBodyCache {
  private readonly bodies: ByteLru<Buffer>;
  private readonly loading = new Map<string, Promise<Buffer | null>>();
  /** Variants found not worth keeping (`<commitment>:<coding>`), so they are not tried again. */
  private readonly notWorth = new Set<string>();

  constructor(
    private readonly reader: ObjectReader,
    cacheBytes: number,
    /** Objects larger than this are never held whole: they stream from the store. */
    readonly maxObjectBytes: number,
  ) {
    this.bodies = new ByteLru(cacheBytes);
  }

  cacheable(object: SiteObject): boolean {
    return object.size <= this.maxObjectBytes && object.size <= this.bodies.maxBytes;
  }

  getIdentity(object: SiteObject): Buffer | undefined {
    return this.bodies.get(object.commitmentHex);
  }

  getVariant(object: SiteObject, coding: Coding): Buffer | undefined {
    return this.bodies.get(`${object.commitmentHex}:${coding}`);
  }

  async loadIdentity(object: SiteObject): Promise<Buffer> {
    const key = object.commitmentHex;
    const loaded = await this.once(key, async () => {
      const bytes = await readWhole(this.reader, object);
      this.bodies.set(key, bytes);
      return bytes;
    });
    return loaded as Buffer;
  }

  /** The compressed body, or null when compression does not make it meaningfully smaller. */
  async loadVariant(object: SiteObject, coding: Coding): Promise<Buffer | null> {
    const key = `${object.commitmentHex}:${coding}`;
    const cached = this.bodies.get(key);
    if (cached) return cached;
    if (this.notWorth.has(key)) return null;
    return this.once(key, async () => {
      const identity = this.getIdentity(object) ?? (await this.loadIdentity(object));
      const compressed = await compress(identity, coding);
      if (compressed.length > identity.length * MIN_SAVING) {
        if (this.notWorth.size >= NOT_WORTH_LIMIT) this.notWorth.clear();
        this.notWorth.add(key);
        return null;
      }
      this.bodies.set(key, compressed);
      return compressed;
    });
  }

  private once(key: string, load: () => Promise<Buffer | null>): Promise<Buffer | null> {
    let pending = this.loading.get(key);
    if (pending === undefined) {
      pending = load().finally(() => this.loading.delete(key));
      this.loading.set(key, pending);
    }
    return pending;
  }
}

/** The whole verified payload of an object, through the object reader. */
export async function readWhole(reader: ObjectReader, object: SiteObject): Promise<Buffer> {
  const opened = await reader.open(trackRefOf(object));
  if (opened.bytes) return opened.bytes;
  if (opened.size === 0) return Buffer.alloc(0);
  const parts: Buffer[] = [];
  for await (const part of opened.read(0, opened.size - 1)) parts.push(part as Buffer);
  return Buffer.concat(parts, opened.size);
}

function compress(bytes: Buffer, coding: Coding): Promise<Buffer> {
  if (coding === 'gzip') return gzipAsync(bytes, { level: 9 });
  return brotli(bytes, {
    params: {
      [zlib.BROTLI_PARAM_MODE]: zlib.BROTLI_MODE_TEXT,
      [zlib.BROTLI_PARAM_QUALITY]: bytes.length <= BROTLI_HIGH_QUALITY_MAX_BYTES ? 9 : 5,
      [zlib.BROTLI_PARAM_SIZE_HINT]: bytes.length,
    },
  });
}
