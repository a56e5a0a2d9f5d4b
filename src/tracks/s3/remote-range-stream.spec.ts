import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { CHUNK_BYTES, commitmentOfBuffer } from '../commitment';
import { IntegrityError, TrackStoreUnavailableError } from '../track-errors';
import { RemoteBytes, RemoteRangeOptions, RemoteRangeStream } from './remote-range-stream';
import { eventually } from '../../../test/support/jest/eventually';

const SIZE = 3 * CHUNK_BYTES + 1000;
const data = Buffer.alloc(SIZE);
for (let i = 0; i < SIZE; i++) data[i] = (i * 7 + (i >> 9)) & 0xff;
const { chunkHashes } = commitmentOfBuffer(data);

/**
 * A fake remote: serves `stored` in pieces of 10,000 bytes and records each ranged GET; with
 * `inline`, every answer carries that chunk list too.
 */
function remote(stored: Buffer, inline?: Buffer) {
  const gets: [number, number][] = [];
  const fetch = (from: number, to: number): Promise<RemoteBytes> => {
    gets.push([from, to]);
    const slice = stored.subarray(from, to + 1);
    const pieces: Buffer[] = [];
    for (let o = 0; o < slice.length; o += 10_000) pieces.push(slice.subarray(o, o + 10_000));
    return Promise.resolve({ body: Readable.from(pieces), hashes: inline });
  };
  return { gets, fetch };
}

function open(options: Partial<RemoteRangeOptions> & Pick<RemoteRangeOptions, 'fetch'>) {
  return new RemoteRangeStream({
    track: 'ab'.repeat(32),
    size: SIZE,
    start: 0,
    endInclusive: SIZE - 1,
    chunkHashes: () => Promise.resolve(chunkHashes),
    counters: { bytesRead: 0, chunksVerified: 0, integrityFailures: 0 },
    ...options,
  });
}

async function collect(stream: Readable): Promise<{ bytes: Buffer; error?: Error }> {
  const parts: Buffer[] = [];
  try {
    for await (const p of stream) parts.push(p as Buffer);
    return { bytes: Buffer.concat(parts) };
  } catch (error) {
    return { bytes: Buffer.concat(parts), error: error as Error };
  }
}

describe('RemoteRangeStream', () => {
  let dir: string;
  beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'remote-range-'))));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('asks the store for exactly the chunks a range touches and serves the range', async () => {
    const store = remote(data);
    const start = CHUNK_BYTES + 5;
    const end = 2 * CHUNK_BYTES + 17;
    const { bytes, error } = await collect(open({ fetch: store.fetch, start, endInclusive: end }));
    expect(error).toBeUndefined();
    expect(bytes.equals(data.subarray(start, end + 1))).toBe(true);
    expect(store.gets).toEqual([[CHUNK_BYTES, 3 * CHUNK_BYTES - 1]]);
  });

  it('never emits a byte of a chunk that fails its hash', async () => {
    const bad = Buffer.from(data);
    bad[2 * CHUNK_BYTES + 100] ^= 1;
    const failures: string[] = [];
    const { bytes, error } = await collect(
      open({ fetch: remote(bad).fetch, onIntegrityFailure: (t) => failures.push(t) }),
    );
    expect(error).toBeInstanceOf(IntegrityError);
    expect(error!.message).toMatch(/chunk 2 does not match/);
    expect(bytes.length).toBe(2 * CHUNK_BYTES); // chunks 0 and 1 only
    expect(failures).toEqual(['ab'.repeat(32)]);
  });

  it('a short object is an IntegrityError, a broken connection is a store outage', async () => {
    const short = await collect(open({ fetch: remote(data.subarray(0, SIZE - 10)).fetch }));
    expect(short.error).toBeInstanceOf(IntegrityError);
    const broken = await collect(
      open({
        fetch: () =>
          Promise.resolve({
            body: new Readable({
              read() {
                this.destroy(new Error('ECONNRESET'));
              },
            }),
          }),
      }),
    );
    expect(broken.error).toBeInstanceOf(TrackStoreUnavailableError);
  });

  it('a whole read fills the cache with the verified bytes; a read stopped early leaves nothing', async () => {
    const temp = join(dir, 'fill.part');
    let admitted: Buffer | undefined;
    const fill = {
      tempPath: temp,
      admit: (hashes: Buffer) => {
        admitted = hashes;
        return Promise.resolve();
      },
    };
    await collect(open({ fetch: remote(data).fetch, fill }));
    await eventually('the fill admitted', () => admitted !== undefined);
    expect(admitted?.equals(chunkHashes)).toBe(true);
    expect(readFileSync(temp).equals(data)).toBe(true);
    rmSync(temp);

    admitted = undefined;
    const stream = open({ fetch: remote(data).fetch, fill });
    await new Promise<void>((resolve) => stream.once('data', () => resolve()));
    stream.destroy();
    await new Promise((r) => stream.once('close', r));
    expect(admitted).toBeUndefined();
    expect(existsSync(temp)).toBe(false);
  });

  it('asks for the chunk list and the bytes at once: a cold read is one round trip', async () => {
    const store = remote(data);
    // The list arrives only once the GET of the bytes was sent (in order: never).
    const hashesAfterGet = () =>
      new Promise<Buffer>((resolve, reject) => {
        const deadline = Date.now() + 1000;
        const poll = () => {
          if (store.gets.length > 0) return resolve(chunkHashes);
          if (Date.now() > deadline) return reject(new Error('the bytes were not asked for'));
          setTimeout(poll, 5);
        };
        poll();
      });
    const { bytes, error } = await collect(
      open({ fetch: store.fetch, chunkHashes: hashesAfterGet }),
    );
    expect(error).toBeUndefined();
    expect(bytes.equals(data)).toBe(true);
  });

  it('a failed chunk list fails the read before any byte, and closes the GET', async () => {
    let body: Readable | undefined;
    const { bytes, error } = await collect(
      open({
        fetch: async (from, to) => {
          const got = await remote(data).fetch(from, to);
          body = got.body;
          return got;
        },
        chunkHashes: () => Promise.reject(new IntegrityError('ab'.repeat(32), 'bad list')),
      }),
    );
    expect(error).toBeInstanceOf(IntegrityError);
    expect(bytes.length).toBe(0);
    expect(body?.destroyed).toBe(true);
  });

  it('ends the response before the cache fill is synced and admitted', async () => {
    let admitted = false;
    let release!: () => void;
    const fill = {
      tempPath: join(dir, 'slow.part'),
      admit: () =>
        new Promise<void>((resolve) => {
          release = () => {
            admitted = true;
            resolve();
          };
        }),
    };
    const { bytes, error } = await collect(open({ fetch: remote(data).fetch, fill }));
    expect(error).toBeUndefined();
    expect(bytes.equals(data)).toBe(true);
    expect(admitted).toBe(false); // the client had every byte while the admission waited
    await eventually('the admission waiting', () => release !== undefined);
    release();
    expect(admitted).toBe(true);
  });

  describe('listWithBytes (the list kept in the object metadata)', () => {
    it('one request: the list that came with the bytes verifies them, none is asked for', async () => {
      const store = remote(data, chunkHashes);
      let listAsked = 0;
      const { bytes, error } = await collect(
        open({
          fetch: store.fetch,
          listWithBytes: true,
          chunkHashes: () => {
            listAsked++;
            return Promise.resolve(chunkHashes);
          },
        }),
      );
      expect(error).toBeUndefined();
      expect(bytes.equals(data)).toBe(true);
      expect(store.gets).toHaveLength(1);
      expect(listAsked).toBe(0);
    });

    it('an answer without the list: the list is asked for after it, and still verifies', async () => {
      const bad = Buffer.from(data);
      bad[100] ^= 1;
      let listAsked = 0;
      const { bytes, error } = await collect(
        open({
          fetch: remote(bad).fetch,
          listWithBytes: true,
          chunkHashes: () => {
            listAsked++;
            return Promise.resolve(chunkHashes);
          },
        }),
      );
      expect(listAsked).toBe(1);
      expect(error).toBeInstanceOf(IntegrityError);
      expect(bytes.length).toBe(0);
    });

    it('a failed list after the bytes closes the GET and leaves no fill file', async () => {
      let body: Readable | undefined;
      const temp = join(dir, 'fill.part');
      const { error } = await collect(
        open({
          fetch: async (from, to) => {
            const got = await remote(data).fetch(from, to);
            body = got.body;
            return got;
          },
          listWithBytes: true,
          chunkHashes: () => Promise.reject(new IntegrityError('ab'.repeat(32), 'bad list')),
          fill: { tempPath: temp, admit: () => Promise.resolve() },
        }),
      );
      expect(error).toBeInstanceOf(IntegrityError);
      expect(body?.destroyed).toBe(true);
      expect(existsSync(temp)).toBe(false);
    });
  });
});
