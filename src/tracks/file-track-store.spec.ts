import { randomBytes } from 'node:crypto';
import {
  mkdtempSync,
  readFileSync,
  readdirSync,
  statSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import {
  bodyOf,
  drain,
  filesUnder,
  newTestStore,
  putBytes,
} from '../../test/support/fixtures/tracks';
import { CHUNK_BYTES, commitmentOfBuffer, commitmentToHex } from './commitment';
import { FileTrackStore } from './file-track-store';
import {
  TrackCommitmentMismatchError,
  TrackSizeMismatchError,
  TrackUploadInterruptedError,
} from './track-errors';

describe('FileTrackStore.put', () => {
  it('stores bytes and chunk list at <aa>/<bb>/<hex>, and nothing else', async () => {
    const { store: sut, root } = newTestStore();
    const data = randomBytes(3 * CHUNK_BYTES + 100);
    const commitment = await putBytes(sut, data);
    const hex = commitmentToHex(commitment);
    const dir = `${hex.slice(0, 2)}/${hex.slice(2, 4)}`;
    expect(filesUnder(root)).toEqual([`${dir}/${hex}`, `${dir}/${hex}.chunks`]);
    expect(readFileSync(join(root, dir, hex)).equals(data)).toBe(true);
    expect(
      readFileSync(join(root, dir, `${hex}.chunks`)).equals(commitmentOfBuffer(data).chunkHashes),
    ).toBe(true);
    expect(await sut.has(commitment)).toBe(true);
    expect(await sut.storedSize(commitment)).toBe(data.length);
    expect((await sut.stats()).puts).toBe(1);
  });

  it('stores an empty track', async () => {
    const { store: sut } = newTestStore();
    const commitment = await putBytes(sut, Buffer.alloc(0));
    expect(await sut.storedSize(commitment)).toBe(0);
    expect((await sut.readChunkHashes(commitment, 0)).length).toBe(0);
  });

  it('refuses bytes that do not hash to the commitment and leaves no file', async () => {
    const { store: sut, root } = newTestStore();
    const data = randomBytes(200_000);
    const other = commitmentOfBuffer(Buffer.from('something else')).commitment;
    await expect(sut.put(other, data.length, bodyOf(data))).rejects.toBeInstanceOf(
      TrackCommitmentMismatchError,
    );
    expect(filesUnder(root)).toEqual([]);
    expect(readdirSync(root)).toEqual(['.tmp']); // no shard directory either
    expect(await sut.has(other)).toBe(false);
    expect((await sut.stats()).rejectedPuts).toBe(1);
  });

  it('refuses a short body and a long body, stopping early on the long one', async () => {
    const { store: sut, root } = newTestStore();
    const data = randomBytes(100_000);
    const { commitment } = commitmentOfBuffer(data);
    await expect(
      sut.put(commitment, data.length, bodyOf(data.subarray(0, 99_999))),
    ).rejects.toThrow(TrackSizeMismatchError);
    let produced = 0;
    const endless = new Readable({
      read() {
        produced += CHUNK_BYTES;
        this.push(Buffer.alloc(CHUNK_BYTES));
      },
    });
    const error = await sut.put(commitment, data.length, endless).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TrackSizeMismatchError);
    expect((error as TrackSizeMismatchError).received).toBeGreaterThan(data.length);
    expect(produced).toBeLessThan(1024 * 1024);
    expect(endless.destroyed).toBe(true);
    expect(filesUnder(root)).toEqual([]);
  });

  it('leaves nothing behind when the body stream fails or closes early', async () => {
    const { store: sut, root } = newTestStore();
    const data = randomBytes(300_000);
    const { commitment } = commitmentOfBuffer(data);
    const failing = new Readable({ read() {} });
    failing.push(data.subarray(0, 150_000));
    // On a loaded machine the error may come before put() reads: it must still see it.
    failing.on('error', () => undefined);
    setTimeout(() => failing.destroy(new Error('client went away')), 20);
    const error = await sut.put(commitment, data.length, failing).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TrackUploadInterruptedError);
    expect((error as Error).message).toMatch(/client went away/);
    expect(filesUnder(root)).toEqual([]);

    const closing = new Readable({ read() {} });
    closing.push(data.subarray(0, 70_000));
    setTimeout(() => closing.destroy(), 20);
    await expect(sut.put(commitment, data.length, closing)).rejects.toBeInstanceOf(
      TrackUploadInterruptedError,
    );
    expect(filesUnder(root)).toEqual([]);
  });

  it('takes concurrent puts of the same track', async () => {
    const { store: sut, root } = newTestStore();
    const data = randomBytes(5 * CHUNK_BYTES + 7);
    const { commitment } = commitmentOfBuffer(data);
    await Promise.all(
      Array.from({ length: 6 }, (_, i) =>
        sut.put(commitment, data.length, bodyOf(data, 1000 + i * 777)),
      ),
    );
    expect(filesUnder(root)).toHaveLength(2);
    expect(
      (await drain(sut.openRange(commitment, data.length, 0, data.length - 1))).bytes.equals(data),
    ).toBe(true);
  });

  it('still checks the body of a track it already has, and keeps the good copy', async () => {
    const { store: sut } = newTestStore();
    const data = randomBytes(70_000);
    const commitment = await putBytes(sut, data);
    const lie = Buffer.from(data);
    lie[5] ^= 1;
    await expect(sut.put(commitment, data.length, bodyOf(lie))).rejects.toBeInstanceOf(
      TrackCommitmentMismatchError,
    );
    await sut.put(commitment, data.length, bodyOf(data));
    expect(
      (await drain(sut.openRange(commitment, data.length, 0, data.length - 1))).bytes.equals(data),
    ).toBe(true);
  });

  it('rejects malformed arguments', async () => {
    const { store: sut } = newTestStore();
    await expect(sut.put(Buffer.alloc(31), 1, bodyOf(Buffer.from('x')))).rejects.toThrow(
      RangeError,
    );
    const { commitment } = commitmentOfBuffer(Buffer.from('x'));
    await expect(sut.put(commitment, -1, bodyOf(Buffer.from('x')))).rejects.toThrow(RangeError);
    await expect(sut.put(commitment, 2 ** 53, bodyOf(Buffer.from('x')))).rejects.toThrow(
      RangeError,
    );
    await expect(sut.has(Buffer.alloc(0))).rejects.toThrow(RangeError);
  });
});

describe('FileTrackStore maintenance', () => {
  it('removes a track and both its files', async () => {
    const { store: sut, root } = newTestStore();
    const commitment = await putBytes(sut, randomBytes(1000));
    expect(await sut.remove(commitment)).toBe(true);
    expect(await sut.remove(commitment)).toBe(false);
    expect(await sut.has(commitment)).toBe(false);
    expect(filesUnder(root)).toEqual([]);
  });

  it('sweeps stale temporary files on start, not fresh ones', async () => {
    const { root } = newTestStore();
    const first = new FileTrackStore(root);
    await first.init();
    const stale = join(root, '.tmp', 'abc.1.dead.part');
    const fresh = join(root, '.tmp', 'abc.2.live.part');
    writeFileSync(stale, 'x');
    writeFileSync(fresh, 'x');
    const twoHoursAgo = new Date(Date.now() - 2 * 3600 * 1000);
    utimesSync(stale, twoHoursAgo, twoHoursAgo);
    await new FileTrackStore(root).init();
    expect(readdirSync(join(root, '.tmp'))).toEqual(['abc.2.live.part']);
  });

  it('reports health, and a short reason when it cannot write', async () => {
    const { store: sut } = newTestStore();
    await expect(sut.checkHealth()).resolves.toBeUndefined();
    const blocked = join(mkdtempSync(join(tmpdir(), 'tracks-')), 'tracks');
    writeFileSync(blocked, 'a file where the directory should be');
    await expect(new FileTrackStore(blocked).checkHealth()).rejects.toThrow(
      /^track store not writable \((ENOTDIR|EEXIST)\)$/,
    );
  });

  it('reports the volume in stats', async () => {
    const { store: sut, root } = newTestStore();
    await sut.init();
    const stats = await sut.stats();
    expect(stats.backend).toBe('file');
    expect(stats.freeBytes).toBeGreaterThan(0);
    expect(stats.totalBytes).toBeGreaterThanOrEqual(stats.freeBytes!);
    expect(statSync(root).isDirectory()).toBe(true);
  });
});
