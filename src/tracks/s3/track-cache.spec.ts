import { existsSync, mkdtempSync, readdirSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { TrackCache } from './track-cache';
import { eventually } from '../../../test/support/jest/eventually';

const hex = (n: number) => n.toString(16).padStart(64, '0');

describe('TrackCache', () => {
  let dir: string;
  beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'track-cache-'))));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  async function admit(cache: TrackCache, n: number, size: number) {
    const temp = cache.tempPath(hex(n), 'test');
    writeFileSync(temp, Buffer.alloc(size, n));
    await cache.admit(hex(n), temp, size, Buffer.alloc(32));
  }

  it('stays within max_bytes, evicting the least recently used track and its files', async () => {
    const cache = new TrackCache(dir, 300);
    await cache.init();
    await admit(cache, 1, 100);
    await admit(cache, 2, 100);
    await admit(cache, 3, 100);
    expect(cache.lookup(hex(1))).toBe(100); // 1 is now the most recent
    await admit(cache, 4, 100);
    expect(cache.bytes).toBe(300);
    expect(cache.lookup(hex(2))).toBeUndefined();
    await eventually(
      "the evicted track's files removed",
      () => !existsSync(cache.dataPath(hex(2))) && !existsSync(cache.chunksPath(hex(2))),
    );
    expect(cache.lookup(hex(1))).toBe(100);
  });

  it('does not admit a track larger than the whole cache', async () => {
    const cache = new TrackCache(dir, 50);
    await cache.init();
    await admit(cache, 1, 100);
    expect(cache.lookup(hex(1))).toBeUndefined();
    expect(readdirSync(cache.tmpDir)).toEqual([]);
  });

  it('survives a restart: the index is rebuilt from disk, half fills and orphans are swept', async () => {
    const first = new TrackCache(dir, 1000);
    await first.init();
    await admit(first, 1, 100);
    await admit(first, 2, 200);
    utimesSync(first.dataPath(hex(1)), new Date(1000), new Date(1000));
    writeFileSync(first.tempPath(hex(9), 'killed'), 'half a fill');
    writeFileSync(first.dataPath(hex(7)), 'bytes without a chunk list');
    writeFileSync(first.chunksPath(hex(8)), 'a list without bytes');

    const second = new TrackCache(dir, 250);
    await second.init();
    // Over the smaller budget: the oldest (track 1) went first.
    expect(second.lookup(hex(1))).toBeUndefined();
    expect(second.lookup(hex(2))).toBe(200);
    expect(second.bytes).toBe(200);
    expect(readdirSync(second.tmpDir)).toEqual([]);
    expect(existsSync(second.dataPath(hex(7)))).toBe(false);
    expect(existsSync(second.chunksPath(hex(8)))).toBe(false);
  });
});
