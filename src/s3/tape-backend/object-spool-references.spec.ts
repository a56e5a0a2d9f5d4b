import { randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { StorageConfig } from '../../config/storage.config';
import { FileTrackStore } from '../../tracks/file-track-store';
import { ObjectSpool } from './object-spool';

const SEGMENT = 64 * 1024;
const owner = { tape: 'tape-address', track: 'track-address' };

async function newSpool() {
  const dataDir = mkdtempSync(join(tmpdir(), 'tape-spool-refs-'));
  const storage = Object.assign(new StorageConfig(), { data_dir: dataDir, segment_bytes: SEGMENT });
  const store = new FileTrackStore(join(dataDir, 'tracks'));
  const spool = new ObjectSpool(storage, store);
  await spool.onModuleInit();
  return { spool, store };
}

describe('ObjectSpool.store: references for the track store’s collector', () => {
  it('records the blob as its track’s own bytes', async () => {
    const { spool, store } = await newSpool();
    const object = await spool.spool(Readable.from([randomBytes(1000)]), 1000);
    await spool.store(object, owner);
    const blobs = await store.listReferenced(undefined, 10);
    expect(blobs.map((b) => b.references.map((r) => [r.track, r.tape, r.role]))).toEqual([
      [['track-address', 'tape-address', 'track']],
    ]);
  });

  it('records each segment of a streamed object under its manifest track, even one already stored', async () => {
    const { spool, store } = await newSpool();
    const data = randomBytes(2 * SEGMENT + 5);
    await spool.store(await spool.spool(Readable.from([data])));
    expect(await store.listReferenced(undefined, 10)).toEqual([]);
    const object = await spool.spool(Readable.from([data]));
    await spool.store(object, owner);
    const roles = (await store.listReferenced(undefined, 10)).map((b) =>
      b.references.map((r) => r.role).join(),
    );
    expect(roles.sort()).toEqual(['segment', 'segment', 'segment', 'track']);
  });
});
