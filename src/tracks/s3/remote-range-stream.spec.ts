import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { CHUNK_BYTES, commitmentOfBuffer } from '../commitment';
import { IntegrityError, TrackStoreUnavailableError } from '../track-errors';
import { RemoteRangeOptions, RemoteRangeStream } from './remote-range-stream';

const SIZE = 3 * CHUNK_BYTES + 1000;
const data = Buffer.alloc(SIZE);
for (let i = 0; i < SIZE; i++) data[i] = (i * 7 + (i >> 9)) & 0xff;
const { chunkHashes } = commitmentOfBuffer(data);

/** A fake remote: serves `stored` in pieces of 10,000 bytes and records each ranged GET. */
function remote(stored: Buffer) {
  const gets: [number, number][] = [];
  const fetch = (from: number, to: number): Promise<Readable> => {
    gets.push([from, to]);
    const slice = stored.subarray(from, to + 1);
    const pieces: Buffer[] = [];
    for (let o = 0; o < slice.length; o += 10_000) pieces.push(slice.subarray(o, o + 10_000));
    return Promise.resolve(Readable.from(pieces));
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
          Promise.resolve(
            new Readable({
              read() {
                this.destroy(new Error('ECONNRESET'));
              },
            }),
          ),
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
});
