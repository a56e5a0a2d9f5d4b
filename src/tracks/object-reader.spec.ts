import { randomBytes } from 'node:crypto';
import { openSync, readFileSync, readdirSync, writeSync, closeSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { bodyOf, drain, newTestStore, putBytes } from '../../test/support/fixtures/tracks';
import { CHUNK_BYTES, commitmentOfBuffer, commitmentToHex } from './commitment';
import { FileTrackStore } from './file-track-store';
import { encodeManifest } from './manifest';
import { ObjectReader, ObjectReaderOptions, PackedRef, TrackRef } from './object-reader';
import { IntegrityError, TrackNotFoundError } from './track-errors';
import { SegmentingHasher } from './track-layout';
import { eventually } from '../../test/support/jest/eventually';

const S = 256 * 1024;
const C = CHUNK_BYTES;

function dataPath(root: string, commitment: Buffer) {
  const hex = commitmentToHex(commitment);
  return join(root, hex.slice(0, 2), hex.slice(2, 4), hex);
}

function corruptByte(path: string, offset: number) {
  const fd = openSync(path, 'r+');
  writeSync(fd, Buffer.from([readFileSync(path)[offset] ^ 1]), 0, 1, offset);
  closeSync(fd);
}

/** A store holding one streamed object (segments + manifest) and a reader over it. */
async function newStreamedObject(size = 3 * S + 12345, options: Partial<ObjectReaderOptions> = {}) {
  const { store, root } = newTestStore();
  const data = randomBytes(size);
  const layout = new SegmentingHasher(S).update(data).digest();
  if (layout.kind !== 'manifest') throw new Error('expected a streamed layout');
  for (const segment of layout.segments) {
    await store.put(
      segment.commitment,
      segment.size,
      bodyOf(data.subarray(segment.offset, segment.offset + segment.size), 50_000),
    );
  }
  const manifest = layout.manifestDigest.commitment;
  await store.put(manifest, layout.manifestBytes.length, bodyOf(layout.manifestBytes));
  const ref: TrackRef = { kind: 'manifest', commitment: manifest, size };
  return { sut: new ObjectReader(store, options), store, root, data, layout, ref };
}

describe('ObjectReader with a streamed object', () => {
  it('follows the manifest: size, ETag, segment count', async () => {
    const { sut, data, ref } = await newStreamedObject();
    const object = await sut.open(ref);
    expect(object.kind).toBe('manifest');
    expect(object.size).toBe(data.length);
    expect(object.trackCount).toBe(4);
    expect(object.etag).toBe(`"${commitmentToHex(ref.commitment)}"`);
    expect(object.bytes).toBeUndefined();
    expect(await sut.sizeOf(ref)).toBe(data.length);
  });

  it('reads ranges at and across segment boundaries byte for byte', async () => {
    const { sut, data, ref } = await newStreamedObject();
    const object = await sut.open(ref);
    const n = data.length;
    const points = [
      0,
      1,
      C,
      S - 1,
      S,
      S + 1,
      2 * S - 1,
      2 * S,
      2 * S + C + 3,
      3 * S - 1,
      3 * S,
      n - 1,
    ];
    for (const start of points) {
      for (const end of points) {
        if (end < start) continue;
        const { bytes, error } = await drain(object.read(start, end));
        expect(error).toBeUndefined();
        expect(bytes.equals(data.subarray(start, end + 1))).toBe(true);
        const touched = Math.floor(end / S) - Math.floor(start / S) + 1;
        expect(object.tracksTouched(start, end)).toBe(touched);
      }
    }
  });

  it('reads only the segments and chunks a range touches', async () => {
    const { sut, store, ref } = await newStreamedObject(8 * S);
    const object = await sut.open(ref);
    const before = (await store.stats()).bytesRead;
    const start = 3 * S - 1000;
    const { bytes } = await drain(object.read(start, start + S - 1));
    expect(bytes.length).toBe(S);
    expect(object.tracksTouched(start, start + S - 1)).toBe(2);
    // A 256 KiB range crossing one boundary reads at most its bytes plus two partial chunks.
    expect((await store.stats()).bytesRead - before).toBeLessThanOrEqual(S + 2 * C);
  });

  it('loads the manifest once, then serves from its cache', async () => {
    const { sut, store, ref } = await newStreamedObject();
    await sut.open(ref);
    const before = (await store.stats()).bytesRead;
    await Promise.all([sut.open(ref), sut.open(ref), sut.sizeOf(ref)]);
    expect((await store.stats()).bytesRead).toBe(before);
  });

  it('ends the stream with an IntegrityError at a tampered segment, after only good bytes', async () => {
    const { sut, root, data, layout, ref } = await newStreamedObject();
    corruptByte(dataPath(root, layout.segments[1].commitment), 100);
    const object = await sut.open(ref);
    const { bytes, error } = await drain(object.read(0, data.length - 1));
    expect(error).toBeInstanceOf(IntegrityError);
    expect(bytes.equals(data.subarray(0, S))).toBe(true);
  });

  it('reports a missing segment when the read reaches it', async () => {
    const { sut, store, data, layout, ref } = await newStreamedObject();
    await store.remove(layout.segments[2].commitment);
    const object = await sut.open(ref);
    expect((await drain(object.read(0, S))).error).toBeUndefined();
    const { error } = await drain(object.read(0, data.length - 1));
    expect(error).toBeInstanceOf(TrackNotFoundError);
  });

  it('refuses a manifest whose total differs from the chain record', async () => {
    const { sut, ref } = await newStreamedObject();
    await expect(sut.open({ ...ref, size: ref.size + 1 })).rejects.toThrow(/manifest describes/);
  });

  it('refuses a manifest track whose bytes are not a manifest or were tampered', async () => {
    const { store, root } = newTestStore();
    const notManifest = await putBytes(store, Buffer.from('{"hello":"world"}'));
    const sut = new ObjectReader(store);
    await expect(
      sut.open({ kind: 'manifest', commitment: notManifest, size: 5 }),
    ).rejects.toBeInstanceOf(IntegrityError);
    const manifest = encodeManifest({
      type: 'tape-manifest',
      version: 1,
      size: 10,
      segment_bytes: S,
      segments: [{ size: 10, commitment: 'ab'.repeat(32) }],
    });
    const commitment = await putBytes(store, manifest);
    corruptByte(dataPath(root, commitment), 3);
    await expect(sut.open({ kind: 'manifest', commitment, size: 10 })).rejects.toBeInstanceOf(
      IntegrityError,
    );
    const absent = commitmentOfBuffer(Buffer.from('absent')).commitment;
    await expect(
      sut.open({ kind: 'manifest', commitment: absent, size: 10 }),
    ).rejects.toBeInstanceOf(TrackNotFoundError);
  });

  it('closes the open segment file when a consumer goes away mid-object', async () => {
    const { sut, data, ref } = await newStreamedObject();
    const object = await sut.open(ref);
    const openFiles = () => readdirSync('/proc/self/fd').length;
    const before = openFiles();
    const stream = object.read(0, data.length - 1);
    let received = 0;
    await new Promise<void>((resolve) =>
      stream.on('data', (bytes: Buffer) => {
        received += bytes.length;
        if (received > S + C) resolve(); // inside the second segment
      }),
    );
    stream.pause();
    expect(openFiles()).toBe(before + 1); // the second segment's file
    stream.destroy();
    await eventually('the segment file closed', () => openFiles() === before);
  });

  it('keeps backpressure across segments for a slow consumer', async () => {
    const { sut, store, ref } = await newStreamedObject(6 * S);
    const object = await sut.open(ref);
    const stream = object.read(0, 6 * S - 1);
    const base = (await store.stats()).bytesRead;
    let consumed = 0;
    for (let i = 0; i < 12; i++) {
      consumed += await new Promise<number>((resolve) =>
        stream.once('data', (bytes: Buffer) => {
          stream.pause();
          resolve(bytes.length);
        }),
      );
      await new Promise((r) => setTimeout(r, 5));
      expect((await store.stats()).bytesRead - base - consumed).toBeLessThanOrEqual(3 * C);
      stream.resume();
    }
    stream.destroy();
  });
});

describe('ObjectReader with a blob', () => {
  it('holds a small blob in memory once verified, and slices it without reading again', async () => {
    const { store } = newTestStore();
    const data = randomBytes(256 * 1024);
    const commitment = await putBytes(store, data);
    const sut = new ObjectReader(store);
    const ref: TrackRef = { kind: 'blob', commitment, size: data.length };
    const objects = await Promise.all([sut.open(ref), sut.open(ref), sut.open(ref)]);
    expect((await store.stats()).bytesRead).toBe(data.length); // one load for three opens
    const object = objects[0];
    expect(object.bytes?.equals(data)).toBe(true);
    expect(object.trackCount).toBe(1);
    const { bytes } = await drain(object.read(1000, 70_000));
    expect(bytes.equals(data.subarray(1000, 70_001))).toBe(true);
    // Served as a view of the verified buffer, not a copy.
    const [view] = (await object.read(0, data.length - 1).toArray()) as Buffer[];
    expect(view.buffer).toBe(object.bytes!.buffer);
    expect(view.length).toBe(data.length);
    await sut.open(ref);
    expect((await store.stats()).bytesRead).toBe(data.length);
  });

  it('refuses a tampered small blob before serving anything', async () => {
    const { store, root } = newTestStore();
    const data = randomBytes(100_000);
    const commitment = await putBytes(store, data);
    corruptByte(dataPath(root, commitment), 99_999);
    const sut = new ObjectReader(store);
    await expect(sut.open({ kind: 'blob', commitment, size: data.length })).rejects.toBeInstanceOf(
      IntegrityError,
    );
  });

  it('streams a large blob from the store, with missing tracks refused at open', async () => {
    const { store, root } = newTestStore();
    const data = randomBytes(5 * C + 3);
    const commitment = await putBytes(store, data);
    const sut = new ObjectReader(store, { hotObjectMaxBytes: C });
    const object = await sut.open({ kind: 'blob', commitment, size: data.length });
    expect(object.bytes).toBeUndefined();
    expect(
      (await drain(object.read(C - 1, 3 * C))).bytes.equals(data.subarray(C - 1, 3 * C + 1)),
    ).toBe(true);
    rmSync(`${dataPath(root, commitment)}.chunks`);
    // A fresh store: the first one keeps the list it already verified.
    const fresh = new ObjectReader(new FileTrackStore(root), { hotObjectMaxBytes: C });
    await expect(
      fresh.open({ kind: 'blob', commitment, size: data.length }),
    ).rejects.toBeInstanceOf(IntegrityError);
    const absent = commitmentOfBuffer(Buffer.from('nope')).commitment;
    await expect(sut.open({ kind: 'blob', commitment: absent, size: 4 })).rejects.toBeInstanceOf(
      TrackNotFoundError,
    );
    // Bytes gone but the list left behind (a crash during remove): refused at open too.
    await putBytes(store, data.subarray(0, 2 * C));
    const partial = commitmentOfBuffer(data.subarray(0, 2 * C)).commitment;
    rmSync(dataPath(root, partial));
    await expect(
      fresh.open({ kind: 'blob', commitment: partial, size: 2 * C }),
    ).rejects.toBeInstanceOf(TrackNotFoundError);
  });

  it('opens an empty blob', async () => {
    const { store } = newTestStore();
    const commitment = await putBytes(store, Buffer.alloc(0));
    const object = await new ObjectReader(store).open({ kind: 'blob', commitment, size: 0 });
    expect(object.size).toBe(0);
    expect(object.bytes?.length).toBe(0);
    expect(() => object.read(0, 0)).toThrow(RangeError);
  });

  it('rejects malformed references and ranges', async () => {
    const { store } = newTestStore();
    const commitment = await putBytes(store, Buffer.from('hello'));
    const sut = new ObjectReader(store);
    await expect(sut.open({ kind: 'blob', commitment: Buffer.alloc(5), size: 5 })).rejects.toThrow(
      RangeError,
    );
    await expect(sut.open({ kind: 'blob', commitment, size: -5 })).rejects.toThrow(RangeError);
    await expect(sut.open({ kind: 'other' as 'blob', commitment, size: 5 })).rejects.toThrow(
      RangeError,
    );
    const object = await sut.open({ kind: 'blob', commitment, size: 5 });
    expect(() => object.read(3, 2)).toThrow(RangeError);
    expect(() => object.read(0, 5)).toThrow(RangeError);
    expect(() => object.tracksTouched(-1, 2)).toThrow(RangeError);
  });
});

describe('ObjectReader with a packed file', () => {
  async function newPack() {
    const { store, root } = newTestStore();
    const css = Buffer.from('body { color: red }');
    const html = randomBytes(40_000);
    const pack = Buffer.concat([css, Buffer.alloc(C - css.length), html]);
    const packCommitment = await putBytes(store, pack);
    const ref = (file: Buffer, offset: number): PackedRef => ({
      kind: 'packed',
      commitment: commitmentOfBuffer(file).commitment,
      size: file.length,
      pack: packCommitment,
      packSize: pack.length,
      offset,
    });
    return { sut: new ObjectReader(store), root, packCommitment, css, html, ref };
  }

  it('serves its range of the pack under its own commitment as ETag', async () => {
    const { sut, css, html, ref } = await newPack();
    for (const [file, offset] of [
      [css, 0],
      [html, C],
    ] as const) {
      const object = await sut.open(ref(file, offset));
      expect(object.etag).toBe(`"${commitmentToHex(commitmentOfBuffer(file).commitment)}"`);
      expect(object.size).toBe(file.length);
      expect((await drain(object.read(0, file.length - 1))).bytes.equals(file)).toBe(true);
      expect((await drain(object.read(5, 9))).bytes.equals(file.subarray(5, 10))).toBe(true);
    }
  });

  it('refuses a range whose bytes are not the file the ETag names, and a damaged pack', async () => {
    const { sut, root, packCommitment, css, html, ref } = await newPack();
    await expect(
      sut.open({ ...ref(css, 0), commitment: commitmentOfBuffer(html).commitment }),
    ).rejects.toBeInstanceOf(IntegrityError);
    corruptByte(dataPath(root, packCommitment), C + 10);
    await expect(sut.open(ref(html, C))).rejects.toBeInstanceOf(IntegrityError);
    await expect(sut.open({ ...ref(css, 0), offset: C * 2 })).rejects.toBeInstanceOf(RangeError);
  });
});
