import { randomBytes } from 'node:crypto';
import {
  mkdtempSync,
  readdirSync,
  openSync,
  readFileSync,
  rmSync,
  truncateSync,
  writeFileSync,
  writeSync,
  closeSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { drain, newTestStore, putBytes } from '../../test/support/fixtures/tracks';
import { Readable } from 'node:stream';
import { CHUNK_BYTES, TrackHasher, commitmentOfBuffer, commitmentToHex } from './commitment';
import { IntegrityError, TrackNotFoundError } from './track-errors';
import { VerifiedRangeStream } from './verified-range-stream';

const C = CHUNK_BYTES;

function trackFiles(root: string, commitment: Buffer) {
  const hex = commitmentToHex(commitment);
  const data = join(root, hex.slice(0, 2), hex.slice(2, 4), hex);
  return { data, chunks: `${data}.chunks` };
}

/** Overwrites one byte of a file in place. */
function flipByte(path: string, offset: number) {
  const original = readFileSync(path)[offset];
  const fd = openSync(path, 'r+');
  writeSync(fd, Buffer.from([original ^ 0xff]), 0, 1, offset);
  closeSync(fd);
}

describe('FileTrackStore.openRange', () => {
  const data = randomBytes(5 * C + 1234);
  const setup = async () => {
    const { store, root } = newTestStore();
    const commitment = await putBytes(store, data);
    return { store, root, commitment };
  };

  it('reads every range at and across chunk boundaries byte for byte', async () => {
    const { store, commitment } = await setup();
    const edges = [
      0,
      1,
      C - 1,
      C,
      C + 1,
      2 * C - 1,
      2 * C,
      3 * C + 5,
      5 * C - 1,
      5 * C,
      data.length - 1,
    ];
    for (const start of edges) {
      for (const end of edges) {
        if (end < start) continue;
        const { bytes, error } = await drain(store.openRange(commitment, data.length, start, end));
        expect(error).toBeUndefined();
        expect(bytes.equals(data.subarray(start, end + 1))).toBe(true);
      }
    }
  });

  it('reads only the chunks the range touches', async () => {
    const { store, commitment } = await setup();
    const before = await store.stats();
    await drain(store.openRange(commitment, data.length, C + 10, C + 20));
    const afterOne = await store.stats();
    expect(afterOne.bytesRead - before.bytesRead).toBe(C);
    expect(afterOne.chunksVerified - before.chunksVerified).toBe(1);
    await drain(store.openRange(commitment, data.length, 2 * C - 1, 3 * C));
    const afterThree = await store.stats();
    expect(afterThree.chunksVerified - afterOne.chunksVerified).toBe(3);
  });

  it('stops at a tampered chunk with an IntegrityError and never emits its bytes', async () => {
    const { store, root, commitment } = await setup();
    flipByte(trackFiles(root, commitment).data, 2 * C + C / 2);
    const { bytes, error } = await drain(
      store.openRange(commitment, data.length, 0, data.length - 1),
    );
    expect(error).toBeInstanceOf(IntegrityError);
    expect(error!.message).toMatch(/chunk 2 does not match its hash/);
    // Exactly the two good chunks before it, nothing of chunk 2.
    expect(bytes.equals(data.subarray(0, 2 * C))).toBe(true);
    // A range that starts inside the bad chunk emits nothing at all.
    const inside = await drain(store.openRange(commitment, data.length, 2 * C + 100, 2 * C + 200));
    expect(inside.error).toBeInstanceOf(IntegrityError);
    expect(inside.bytes.length).toBe(0);
    // Ranges elsewhere still verify: only the touched chunks are read.
    const elsewhere = await drain(store.openRange(commitment, data.length, 3 * C, 4 * C));
    expect(elsewhere.error).toBeUndefined();
    expect(elsewhere.bytes.equals(data.subarray(3 * C, 4 * C + 1))).toBe(true);
    expect((await store.stats()).integrityFailures).toBe(2);
  });

  it('detects a tampered last (short) chunk', async () => {
    const { store, root, commitment } = await setup();
    flipByte(trackFiles(root, commitment).data, data.length - 1);
    const { bytes, error } = await drain(
      store.openRange(commitment, data.length, 5 * C, data.length - 1),
    );
    expect(error).toBeInstanceOf(IntegrityError);
    expect(bytes.length).toBe(0);
  });

  it('refuses a tampered, missing or oversized chunk list before any byte', async () => {
    for (const damage of [
      (path: string) => flipByte(path, 40),
      (path: string) => rmSync(path),
      (path: string) => writeFileSync(path, Buffer.concat([readFileSync(path), Buffer.alloc(32)])),
      (path: string) => writeFileSync(path, Buffer.alloc(0)),
    ]) {
      const { store, root, commitment } = await setup();
      damage(trackFiles(root, commitment).chunks);
      await expect(store.readChunkHashes(commitment, data.length)).rejects.toBeInstanceOf(
        IntegrityError,
      );
      const { bytes, error } = await drain(store.openRange(commitment, data.length, 0, 10));
      expect(error).toBeInstanceOf(IntegrityError);
      expect(bytes.length).toBe(0);
    }
  });

  it('refuses a chunk list that is self-consistent but for other bytes', async () => {
    const { store, root, commitment } = await setup();
    const other = commitmentOfBuffer(randomBytes(data.length)).chunkHashes;
    writeFileSync(trackFiles(root, commitment).chunks, other);
    await expect(store.readChunkHashes(commitment, data.length)).rejects.toThrow(
      /chunk list does not match the commitment/,
    );
  });

  it('refuses a truncated or extended data file', async () => {
    const { store, root, commitment } = await setup();
    truncateSync(trackFiles(root, commitment).data, data.length - 1);
    const truncated = await drain(store.openRange(commitment, data.length, 0, 5));
    expect(truncated.error).toBeInstanceOf(IntegrityError);
    expect(truncated.bytes.length).toBe(0);
    writeFileSync(trackFiles(root, commitment).data, Buffer.concat([data, Buffer.from('x')]));
    const extended = await drain(store.openRange(commitment, data.length, 0, 5));
    expect(extended.error).toBeInstanceOf(IntegrityError);
  });

  it('refuses a wrong size for the commitment', async () => {
    const { store, commitment } = await setup();
    const { error } = await drain(store.openRange(commitment, data.length + 1, 0, 5));
    expect(error).toBeInstanceOf(IntegrityError);
  });

  it('reports a missing track as TrackNotFoundError', async () => {
    const { store } = newTestStore();
    const absent = commitmentOfBuffer(Buffer.from('never stored')).commitment;
    await expect(store.readChunkHashes(absent, 12)).rejects.toBeInstanceOf(TrackNotFoundError);
    const { error } = await drain(store.openRange(absent, 12, 0, 11));
    expect(error).toBeInstanceOf(TrackNotFoundError);
  });

  it('rejects ranges outside the track synchronously', async () => {
    const { store, commitment } = await setup();
    const n = data.length;
    for (const [start, end] of [
      [-1, 5],
      [5, 4],
      [0, n],
      [n, n],
      [0.5, 3],
      [0, Number.NaN],
      [0, 2 ** 60],
    ]) {
      expect(() => store.openRange(commitment, n, start, end)).toThrow(RangeError);
    }
  });

  it('closes its file when the consumer goes away mid-stream', async () => {
    const { store, commitment } = await setup();
    const openFiles = () => readdirSync('/proc/self/fd').length;
    const before = openFiles();
    const stream = store.openRange(commitment, data.length, 0, data.length - 1);
    await new Promise<void>((resolve) => stream.once('data', () => resolve()));
    expect(openFiles()).toBe(before + 1);
    stream.destroy();
    await new Promise<void>((resolve) => stream.once('close', () => resolve()));
    expect(openFiles()).toBe(before);
    // The store still serves the track afterwards.
    const again = await drain(store.openRange(commitment, data.length, 0, data.length - 1));
    expect(again.bytes.equals(data)).toBe(true);
  });
});

describe('FileTrackStore memory', () => {
  jest.setTimeout(60_000);

  it('streams a 200 MB track to a slow consumer holding about one chunk', async () => {
    const { store } = newTestStore();
    const block = randomBytes(1024 * 1024);
    const blocks = 200;
    const size = blocks * block.length;
    const blocksOf = function* () {
      for (let i = 0; i < blocks; i++) yield block;
    };
    const hasher = new TrackHasher();
    for (const b of blocksOf()) hasher.update(b);
    const { commitment } = hasher.digest();
    await store.put(commitment, size, Readable.from(blocksOf(), { objectMode: false }));

    const stream = store.openRange(commitment, size, 0, size - 1);
    // Slow phase: one chunk every few milliseconds; the store must not read ahead.
    let consumed = 0;
    for (let i = 0; i < 40; i++) {
      const part = await new Promise<Buffer>((resolve) =>
        stream.once('data', (bytes: Buffer) => {
          stream.pause();
          resolve(bytes);
        }),
      );
      consumed += part.length;
      await new Promise((r) => setTimeout(r, 3));
      const { bytesRead } = await store.stats();
      expect(bytesRead - consumed).toBeLessThanOrEqual(2 * C);
      expect(stream.readableLength).toBeLessThanOrEqual(C);
      stream.resume();
    }
    stream.pause();
    // Then the rest, checking that memory does not grow with the track.
    global.gc?.();
    const base = process.memoryUsage();
    let peakRss = base.rss;
    let peakBuffers = base.arrayBuffers;
    for await (const part of stream) {
      consumed += (part as Buffer).length;
      if (consumed % (16 * 1024 * 1024) < C) {
        const now = process.memoryUsage();
        peakRss = Math.max(peakRss, now.rss);
        peakBuffers = Math.max(peakBuffers, now.arrayBuffers);
      }
    }
    expect(consumed).toBe(size);
    expect(peakRss - base.rss).toBeLessThan(100 * 1024 * 1024);
    expect(peakBuffers - base.arrayBuffers).toBeLessThan(100 * 1024 * 1024);
  });
});

describe('VerifiedRangeStream with verify: false (the verified cache, trusted)', () => {
  const data = randomBytes(20 * C + 1234); // more than one 16-chunk read
  const dir = mkdtempSync(join(tmpdir(), 'trusted-range-'));
  const path = join(dir, 'track');
  writeFileSync(path, data);
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const open = (start: number, end: number, size = data.length) => {
    const counters = { bytesRead: 0, chunksVerified: 0, integrityFailures: 0 };
    let listAsked = false;
    const stream = new VerifiedRangeStream({
      track: 'ab'.repeat(32),
      path,
      size,
      start,
      endInclusive: end,
      chunkHashes: () => ((listAsked = true), Promise.resolve(Buffer.alloc(0))),
      counters,
      verify: false,
    });
    return { stream, counters, listAsked: () => listAsked };
  };

  it('serves every range byte for byte, in reads of several chunks, hashing none', async () => {
    const edges = [0, 1, C - 1, C, 16 * C - 1, 16 * C, 16 * C + 1, 17 * C + 9, data.length - 1];
    for (const start of edges) {
      for (const end of edges) {
        if (end < start) continue;
        const { stream, counters, listAsked } = open(start, end);
        const { bytes, error } = await drain(stream);
        expect(error).toBeUndefined();
        expect({ start, end, ok: bytes.equals(data.subarray(start, end + 1)) }).toEqual({
          start,
          end,
          ok: true,
        });
        expect(counters.chunksVerified).toBe(0);
        expect(listAsked()).toBe(false);
      }
    }
  });

  it('still refuses a file whose size is not the track size', async () => {
    const { stream } = open(0, 100, data.length + 1);
    const { bytes, error } = await drain(stream);
    expect(error).toBeInstanceOf(IntegrityError);
    expect(bytes.length).toBe(0);
  });
});
