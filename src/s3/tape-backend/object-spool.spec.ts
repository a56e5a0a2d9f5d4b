import { randomBytes } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough, Readable } from 'node:stream';
import { TrackKind } from '../../tracks/track-kind';
import { StorageConfig } from '../../config/storage.config';
import { FileTrackStore } from '../../tracks/file-track-store';
import { ObjectReader } from '../../tracks/object-reader';
import { commitmentOfBuffer } from '../../tracks/commitment';
import { splitFileIntoTracks } from '../../tracks/track-layout';
import { ObjectSpool } from './object-spool';

const SEGMENT = 64 * 1024;

async function newSpool() {
  const dataDir = mkdtempSync(join(tmpdir(), 'tape-spool-'));
  const storage = Object.assign(new StorageConfig(), { data_dir: dataDir, segment_bytes: SEGMENT });
  const store = new FileTrackStore(join(dataDir, 'tracks'));
  await store.init();
  const spool = new ObjectSpool(storage, store);
  await spool.onModuleInit();
  return { spool, store, dataDir };
}

/** A body delivered in uneven pieces, as a network stream would. */
function bodyOf(data: Buffer, piece = 10_000): Readable {
  const pieces: Buffer[] = [];
  for (let o = 0; o < data.length; o += piece) pieces.push(data.subarray(o, o + piece));
  return Readable.from(pieces);
}

describe('ObjectSpool', () => {
  it.each([0, 1, SEGMENT, SEGMENT + 1, 3 * SEGMENT + 777])(
    'lays out a %i-byte body exactly as tape deploy lays out the same file',
    async (size) => {
      const { spool, dataDir } = await newSpool();
      const data = randomBytes(size);
      const file = join(dataDir, 'same-file');
      writeFileSync(file, data);
      const cli = await splitFileIntoTracks(file, SEGMENT);
      const spooled = await spool.spool(bodyOf(data));
      expect(spooled.size).toBe(size);
      if (cli.kind === 'blob') {
        expect(spooled.kind).toBe(TrackKind.Blob);
        expect(spooled.commitment.equals(cli.digest.commitment)).toBe(true);
      } else {
        expect(spooled.kind).toBe(TrackKind.Manifest);
        expect(spooled.commitment.equals(cli.manifestDigest.commitment)).toBe(true);
        expect(spooled.manifestBytes!.equals(cli.manifestBytes)).toBe(true);
        expect(spooled.segments.map((s) => s.size)).toEqual(cli.segments.map((s) => s.size));
      }
      // Each segment file holds exactly its bytes.
      const joined = Buffer.concat(spooled.segments.map((s) => readFileSync(s.path!)));
      expect(joined.equals(data)).toBe(true);
      await spool.discard(spooled);
      expect(readdirSync(spool.dir)).toEqual([]);
    },
  );

  it('holds a small declared body in memory: no spool file, same commitment', async () => {
    const { spool, store } = await newSpool();
    const data = randomBytes(5000);
    const spooled = await spool.spool(bodyOf(data, 999), data.length);
    expect(spooled.segments[0].bytes!.equals(data)).toBe(true);
    expect(spooled.segments[0].path).toBeUndefined();
    expect(spooled.commitment.equals(commitmentOfBuffer(data).commitment)).toBe(true);
    expect(readdirSync(spool.dir)).toEqual([]);
    await spool.store(spooled);
    expect(await store.has(spooled.commitment)).toBe(true);
  });

  it('a small body shorter or longer than declared is refused', async () => {
    const { spool } = await newSpool();
    await expect(spool.spool(bodyOf(randomBytes(10)), 11)).rejects.toThrow(/10 bytes, 11 declared/);
    await expect(spool.spool(bodyOf(randomBytes(12)), 11)).rejects.toThrow(
      /longer than the declared/,
    );
  });

  it('stores a streamed object so that the object reader serves it whole', async () => {
    const { spool, store } = await newSpool();
    const data = randomBytes(2 * SEGMENT + 5);
    const spooled = await spool.spool(bodyOf(data));
    await spool.store(spooled);
    await spool.discard(spooled);
    const opened = await new ObjectReader(store).open({
      kind: 'manifest',
      commitment: spooled.commitment,
      size: data.length,
    });
    const chunks: Buffer[] = [];
    for await (const chunk of opened.read(0, data.length - 1)) chunks.push(chunk as Buffer);
    expect(Buffer.concat(chunks).equals(data)).toBe(true);
    expect(readdirSync(spool.dir)).toEqual([]);
  });

  it('a body that fails midway rejects with its error and leaves no file behind', async () => {
    const { spool, store } = await newSpool();
    const body = new PassThrough();
    const result = spool.spool(body);
    body.write(randomBytes(3 * SEGMENT));
    await new Promise((r) => setTimeout(r, 20));
    body.destroy(new Error('client went away'));
    await expect(result).rejects.toThrow('client went away');
    expect(readdirSync(spool.dir)).toEqual([]);
    expect((await store.stats()).puts).toBe(0);
  });

  it('sweeps spool files older than an hour at start-up, keeps younger ones', async () => {
    const { spool, dataDir } = await newSpool();
    const { utimesSync } = await import('node:fs');
    writeFileSync(join(spool.dir, 'old.0.seg'), 'x');
    writeFileSync(join(spool.dir, 'young.0.seg'), 'y');
    const twoHoursAgo = new Date(Date.now() - 2 * 3600_000);
    utimesSync(join(spool.dir, 'old.0.seg'), twoHoursAgo, twoHoursAgo);
    const storage = Object.assign(new StorageConfig(), {
      data_dir: dataDir,
      segment_bytes: SEGMENT,
    });
    await new ObjectSpool(storage, new FileTrackStore(join(dataDir, 'tracks'))).onModuleInit();
    expect(readdirSync(spool.dir)).toEqual(['young.0.seg']);
  });
});
