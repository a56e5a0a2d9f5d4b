import type { S3Client } from '@aws-sdk/client-s3';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { AddressInfo, Socket, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { TrackS3Config } from '../../config/storage.config';
import { CHUNK_BYTES, commitmentOfBuffer } from '../commitment';
import { IntegrityError, TrackNotFoundError, TrackStoreUnavailableError } from '../track-errors';
import { S3TrackStore } from './s3-track-store';
import { INLINE_CHUNK_LIST_CHUNKS } from './track-bucket';
import { TrackCache } from './track-cache';
import { eventually } from '../../../test/support/jest/eventually';

/**
 * An in-memory stand-in for the bucket, answering the commands the store sends the way S3 does
 * (404 with $metadata, 412 on If-None-Match: *, ranged GETs). The real thing (Ceph RGW) is in
 * test/track-store-s3.e2e-spec.ts.
 */
class FakeBucket {
  readonly objects = new Map<string, Buffer>();
  /** User metadata (x-amz-meta-*) of each object, as PutObject sent it. */
  readonly metadata = new Map<string, Record<string, string>>();
  readonly log: string[] = [];
  down = false;

  asClient(): S3Client {
    return { send: (command: object) => this.send(command) } as unknown as S3Client;
  }

  private async send(command: object): Promise<unknown> {
    const name = command.constructor.name;
    const input = (command as { input: Record<string, unknown> }).input;
    const key = typeof input.Key === 'string' ? input.Key : '';
    this.log.push(`${name} ${key}`);
    if (this.down) throw Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' });
    const missing = () =>
      Object.assign(new Error('NotFound'), { $metadata: { httpStatusCode: 404 } });
    switch (name) {
      case 'HeadBucketCommand':
        return {};
      case 'HeadObjectCommand': {
        const o = this.objects.get(key);
        if (!o) throw missing();
        return { ContentLength: o.length };
      }
      case 'GetObjectCommand': {
        const o = this.objects.get(key);
        if (!o) throw missing();
        const m = /^bytes=(\d+)-(\d+)$/.exec((input.Range as string | undefined) ?? '');
        const bytes = m ? o.subarray(Number(m[1]), Number(m[2]) + 1) : o;
        const body = Readable.from([bytes]) as Readable & { transformToByteArray?: unknown };
        body.transformToByteArray = () => Promise.resolve(new Uint8Array(bytes));
        return { Body: body, ContentLength: bytes.length, Metadata: this.metadata.get(key) ?? {} };
      }
      case 'PutObjectCommand': {
        if (input.IfNoneMatch === '*' && this.objects.has(key)) {
          throw Object.assign(new Error('PreconditionFailed'), {
            $metadata: { httpStatusCode: 412 },
          });
        }
        const body = input.Body;
        const parts: Buffer[] = [];
        if (Buffer.isBuffer(body)) parts.push(body);
        else for await (const p of body as Readable) parts.push(p as Buffer);
        this.objects.set(key, Buffer.concat(parts));
        this.metadata.set(key, (input.Metadata as Record<string, string> | undefined) ?? {});
        return {};
      }
      case 'DeleteObjectCommand':
        this.objects.delete(key);
        this.metadata.delete(key);
        return {};
      default:
        throw new Error(`unexpected ${name}`);
    }
  }
}

describe('S3TrackStore (against an in-memory bucket)', () => {
  let dir: string;
  let bucket: FakeBucket;
  const data = Buffer.alloc(200_000, 'track bytes ');
  const { commitment } = commitmentOfBuffer(data);
  const hex = commitment.toString('hex');
  const claim = {
    commitment,
    track: 'T1',
    tape: 'tape1',
    role: 'track' as const,
    size: data.length,
  };

  function newStore(name: string, cacheBytes = 1 << 20, verifyCacheReads = false): S3TrackStore {
    return new S3TrackStore({
      s3: Object.assign(new TrackS3Config(), { endpoint: 'http://fake', prefix: 'p/' }),
      cache: new TrackCache(join(dir, name, 'cache'), cacheBytes),
      indexPath: join(dir, name, 'refs.sqlite'),
      client: bucket.asClient(),
      verifyCacheReads,
    });
  }
  /** Fills are admitted after the read that made them ended. */
  async function cached(store: S3TrackStore, tracks = 1): Promise<void> {
    await eventually('the fill admitted', () => store.cacheReport().tracks >= tracks);
    expect(store.cacheReport().tracks).toBe(tracks);
  }
  async function read(store: S3TrackStore, start = 0, end = data.length - 1): Promise<Buffer> {
    const parts: Buffer[] = [];
    for await (const p of store.openRange(commitment, data.length, start, end))
      parts.push(p as Buffer);
    return Buffer.concat(parts);
  }

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 's3-store-'));
    bucket = new FakeBucket();
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('stores bytes and chunk list content-addressed under the prefix; a second put writes nothing', async () => {
    const writer = newStore('w');
    await writer.init();
    await writer.put(commitment, data.length, Readable.from([data]));
    expect([...bucket.objects.keys()].sort()).toEqual([`p/${hex}`, `p/${hex}.chunks`]);
    bucket.log.length = 0;
    await writer.put(commitment, data.length, Readable.from([data]));
    expect(bucket.log.filter((l) => l.startsWith('PutObject'))).toEqual([]);
  });

  it('a reader serves from the bucket once, then from its cache (no more GETs)', async () => {
    await newStore('w').put(commitment, data.length, Readable.from([data]));
    const reader = newStore('r');
    await reader.init();
    expect((await read(reader)).equals(data)).toBe(true);
    await cached(reader);
    bucket.log.length = 0;
    bucket.down = true;
    expect((await read(reader, 1000, 150_000)).equals(data.subarray(1000, 150_001))).toBe(true);
    expect(bucket.log).toEqual([]);
  });

  it('a small track carries its chunk list in its metadata: a cold read is one GET', async () => {
    await newStore('w').put(commitment, data.length, Readable.from([data]));
    const inline = bucket.metadata.get(`p/${hex}`)?.['tape-chunks'];
    expect(Buffer.from(inline!, 'base64').equals(commitmentOfBuffer(data).chunkHashes)).toBe(true);
    const reader = newStore('r');
    await reader.init();
    bucket.log.length = 0;
    expect((await read(reader)).equals(data)).toBe(true);
    expect(bucket.log).toEqual([`GetObjectCommand p/${hex}`]);

    // Past INLINE_CHUNK_LIST_CHUNKS (S3 keeps 2 KB of user metadata) only .chunks holds it.
    const big = Buffer.alloc((INLINE_CHUNK_LIST_CHUNKS + 1) * CHUNK_BYTES, 'big ');
    const bigHex = commitmentOfBuffer(big).commitment.toString('hex');
    await newStore('w').put(commitmentOfBuffer(big).commitment, big.length, Readable.from([big]));
    expect(bucket.metadata.get(`p/${bigHex}`)).toEqual({});
  });

  it('a chunk list in the metadata that does not match the commitment is ignored: .chunks decides', async () => {
    await newStore('w').put(commitment, data.length, Readable.from([data]));
    const forged = commitmentOfBuffer(Buffer.alloc(data.length, 'forged ')).chunkHashes;
    bucket.metadata.set(`p/${hex}`, { 'tape-chunks': forged.toString('base64') });
    const reader = newStore('r');
    bucket.log.length = 0;
    expect((await read(reader)).equals(data)).toBe(true);
    expect(bucket.log).toEqual([`GetObjectCommand p/${hex}`, `GetObjectCommand p/${hex}.chunks`]);

    // Forged bytes with their own (forged) list in the metadata are still refused.
    bucket.objects.set(`p/${hex}`, Buffer.alloc(data.length, 'forged '));
    const fresh = newStore('r2');
    await expect(read(fresh)).rejects.toBeInstanceOf(IntegrityError);
  });

  it('a partial read fetches the whole track into the cache in the background', async () => {
    await newStore('w').put(commitment, data.length, Readable.from([data]));
    const reader = newStore('r');
    await reader.init();
    expect((await read(reader, 70_000, 80_000)).equals(data.subarray(70_000, 80_001))).toBe(true);
    await eventually('the reader cached the track', () => reader.cacheReport().tracks > 0);
    bucket.down = true;
    expect((await read(reader, 150_000, 160_000)).equals(data.subarray(150_000, 160_001))).toBe(
      true,
    );
  });

  it('cached bytes are not hashed again; with verify_reads a byte flipped on the cache disk is caught and evicted', async () => {
    await newStore('w').put(commitment, data.length, Readable.from([data]));
    const reader = newStore('r');
    await reader.init();
    expect((await read(reader)).equals(data)).toBe(true); // the fill: every chunk verified
    await cached(reader);
    const verified = (await reader.stats()).chunksVerified;
    expect(verified).toBe(Math.ceil(data.length / CHUNK_BYTES));
    expect((await read(reader)).equals(data)).toBe(true);
    expect((await reader.stats()).chunksVerified).toBe(verified);

    const careful = newStore('r', 1 << 20, true);
    await careful.init();
    expect((await read(careful)).equals(data)).toBe(true);
    expect((await careful.stats()).chunksVerified).toBe(verified);
    const path = join(dir, 'r', 'cache', hex);
    const damaged = readFileSync(path);
    damaged[100_000] ^= 1;
    writeFileSync(path, damaged);
    bucket.down = true;
    await expect(read(careful)).rejects.toBeInstanceOf(IntegrityError);
    expect(careful.cacheReport().tracks).toBe(0);
  });

  it('a byte flipped on the cache disk is never served: the copy is dropped, counted, and the answer continues from the bucket', async () => {
    await newStore('w').put(commitment, data.length, Readable.from([data]));
    const reader = newStore('r', 1 << 20, true);
    await reader.init();
    expect((await read(reader)).equals(data)).toBe(true);
    await cached(reader);
    const path = join(dir, 'r', 'cache', hex);
    const damaged = readFileSync(path);
    damaged[150_000] ^= 1;
    writeFileSync(path, damaged);
    expect((await read(reader)).equals(data)).toBe(true);
    expect((await reader.stats()).cacheMismatches).toBe(1);
    expect(reader.cacheReport().tracks).toBe(0);
  });

  it('store down and nothing cached: TrackStoreUnavailableError, and the probe names the store', async () => {
    await newStore('w').put(commitment, data.length, Readable.from([data]));
    const reader = newStore('r');
    bucket.down = true;
    await expect(read(reader)).rejects.toBeInstanceOf(TrackStoreUnavailableError);
    await expect(reader.checkHealth()).rejects.toThrow(/^track store unreachable/);
    bucket.down = false;
    await expect(reader.checkHealth()).resolves.toBeUndefined();
  });

  it('a flipped byte in the bucket is an IntegrityError; the next verified put overwrites it', async () => {
    const writer = newStore('w');
    await writer.put(commitment, data.length, Readable.from([data]));
    const bad = Buffer.from(data);
    bad[100_000] ^= 1;
    bucket.objects.set(`p/${hex}`, bad);
    const reader = newStore('r');
    const failure = await read(reader).catch((err: unknown) => err);
    expect(failure).toBeInstanceOf(IntegrityError);
    expect(reader.integrity().recentCorruptTracks).toEqual([hex]);
    await writer.put(commitment, data.length, Readable.from([data]));
    expect(bucket.objects.get(`p/${hex}`)!.equals(data)).toBe(true);
    expect(writer.integrity().quarantined).toBe(1);
    expect((await read(reader)).equals(data)).toBe(true);
  });

  it('has() asks the bucket: a copy deleted behind the cache is missing, and the next put writes it again', async () => {
    const writer = newStore('w');
    await writer.init();
    await writer.put(commitment, data.length, Readable.from([data]));
    expect(writer.cacheReport().tracks).toBe(1); // the writer's own verified copy is cached
    bucket.objects.delete(`p/${hex}`);
    bucket.objects.delete(`p/${hex}.chunks`);
    expect(await writer.has(commitment)).toBe(false);
    await writer.put(commitment, data.length, Readable.from([data]));
    expect(bucket.objects.get(`p/${hex}`)?.equals(data)).toBe(true);
    expect(bucket.objects.has(`p/${hex}.chunks`)).toBe(true);
    expect(await writer.has(commitment)).toBe(true);
  });

  it('a lying upload leaves nothing in the bucket', async () => {
    const writer = newStore('w');
    const lie = Buffer.from(data);
    lie[5] ^= 1;
    await expect(writer.put(commitment, data.length, Readable.from([lie]))).rejects.toThrow(
      /hashes to/,
    );
    expect(bucket.objects.size).toBe(0);
    await expect(read(writer)).rejects.toBeInstanceOf(TrackNotFoundError);
  });

  it('release deletes the objects once no reference is left, and keeps them while one is', async () => {
    const writer = newStore('w');
    const first = await writer.claim(claim);
    await writer.claim({ ...claim, track: 'T2' });
    await writer.put(commitment, data.length, Readable.from([data]));
    const ref = (track: string) => ({
      track,
      tape: 'tape1',
      role: 'track' as const,
      size: data.length,
      recordedAt: first.recordedAt,
    });
    expect(await writer.release(commitment, [ref('T1')], Date.now() + 1000)).toEqual({
      outcome: 'kept',
    });
    expect(bucket.objects.size).toBe(2);
    expect(await writer.release(commitment, [ref('T2')], Date.now() + 1000)).toEqual({
      outcome: 'deleted',
      bytes: data.length,
    });
    expect(bucket.objects.size).toBe(0);
    expect(await writer.has(commitment)).toBe(false);
  });

  it('a store that accepts connections and never answers fails the probe in time, naming the store', async () => {
    const sockets: Socket[] = [];
    const server = createServer((socket) => void sockets.push(socket));
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const port = (server.address() as AddressInfo).port;
    const store = new S3TrackStore({
      s3: Object.assign(new TrackS3Config(), { endpoint: `http://127.0.0.1:${port}` }),
      cache: new TrackCache(join(dir, 'c'), 1024),
      indexPath: join(dir, 'refs.sqlite'),
    });
    const started = Date.now();
    await expect(store.checkHealth()).rejects.toThrow(/^track store unreachable/);
    expect(Date.now() - started).toBeLessThan(2000);
    for (const socket of sockets) socket.destroy();
    server.close();
  });
});
