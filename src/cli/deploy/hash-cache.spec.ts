import { mkdtempSync, readdirSync, renameSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { commitmentOfBuffer } from '../../tracks/commitment';
import { MIN_SEGMENT_BYTES } from '../../tracks/manifest';
import * as trackLayout from '../../tracks/track-layout';
import { HashCache, userCacheDir } from './hash-cache';
import { hashSiteFiles } from './site-hasher';
import { scanSite } from './site-scanner';

const SEGMENT = MIN_SEGMENT_BYTES;
/** Files are dated back a minute, out of the racy window, unless a test says otherwise. */
const OLD = new Date(Date.now() - 60_000);

function newTestSite(files: Record<string, string | Buffer>) {
  const root = mkdtempSync(join(tmpdir(), 'tape-hash-site-'));
  const cacheDir = mkdtempSync(join(tmpdir(), 'tape-hash-cache-'));
  const write = (name: string, body: string | Buffer, when = OLD) => {
    writeFileSync(join(root, name), body);
    utimesSync(join(root, name), when, when);
  };
  for (const [name, body] of Object.entries(files)) write(name, body);
  /** One deploy's hashing: how many files were read, and what they hashed to. */
  const hashOnce = async () => {
    const site = await scanSite(join(root, 'index.html'));
    const cache = await HashCache.open(cacheDir, site.root, SEGMENT);
    const reading = jest.spyOn(trackLayout, 'splitFileIntoTracks');
    try {
      const hashed = await hashSiteFiles(site.files, SEGMENT, { cache });
      expect(await cache.save()).toBe(true);
      return { reads: reading.mock.calls.length, hashed, cacheFile: cache.file };
    } finally {
      reading.mockRestore();
    }
  };
  const cleanup = () =>
    [root, cacheDir].forEach((d) => rmSync(d, { recursive: true, force: true }));
  return { root, cacheDir, write, hashOnce, cleanup };
}

describe('HashCache with hashSiteFiles', () => {
  const sites: { cleanup: () => void }[] = [];
  const make = (files: Record<string, string | Buffer>) => {
    const site = newTestSite(files);
    sites.push(site);
    return site;
  };
  afterAll(() => sites.forEach((s) => s.cleanup()));

  it('reads no file again when nothing changed, and gives the same commitments', async () => {
    const big = Buffer.alloc(SEGMENT * 2 + 5, 7);
    const { hashOnce } = make({ 'index.html': '<h1>hi</h1>', 'app.css': 'body{}', 'big.bin': big });
    const first = await hashOnce();
    expect(first.reads).toBe(3);
    const second = await hashOnce();
    expect(second.reads).toBe(0);
    expect(second.hashed.map((f) => [f.name, f.commitment.toString('hex'), f.layout])).toEqual(
      first.hashed.map((f) => [f.name, f.commitment.toString('hex'), f.layout]),
    );
    const css = second.hashed.find((f) => f.name === 'app.css')!;
    expect(css.commitment.equals(commitmentOfBuffer(Buffer.from('body{}')).commitment)).toBe(true);
    expect(second.hashed.find((f) => f.name === 'big.bin')!.layout.kind).toBe('stream');
  });

  it('hashes a file again when its mtime changed, size the same', async () => {
    const { hashOnce, write } = make({ 'index.html': 'a', 'app.css': 'one' });
    await hashOnce();
    write('app.css', 'two', new Date(OLD.getTime() + 1000));
    const again = await hashOnce();
    expect(again.reads).toBe(1);
    const css = again.hashed.find((f) => f.name === 'app.css')!;
    expect(css.commitment.equals(commitmentOfBuffer(Buffer.from('two')).commitment)).toBe(true);
  });

  it('hashes a file again when its size changed, mtime the same', async () => {
    const { hashOnce, write } = make({ 'index.html': 'a', 'app.css': 'one' });
    await hashOnce();
    write('app.css', 'longer', OLD);
    const again = await hashOnce();
    expect(again.reads).toBe(1);
    const css = again.hashed.find((f) => f.name === 'app.css')!;
    expect(css.commitment.equals(commitmentOfBuffer(Buffer.from('longer')).commitment)).toBe(true);
  });

  it('hashes a file again when it was replaced by another file (inode), stamp otherwise equal', async () => {
    const { hashOnce, write, root } = make({ 'index.html': 'a', 'app.css': 'one' });
    await hashOnce();
    // Replaced the way editors and build tools save: a new file renamed over the old one.
    write('.app.css.new', 'two', OLD);
    renameSync(join(root, '.app.css.new'), join(root, 'app.css'));
    const again = await hashOnce();
    expect(again.reads).toBe(1);
  });

  it('does not cache a file modified within the racy window', async () => {
    const { hashOnce, write } = make({ 'index.html': 'a' });
    write('app.css', 'fresh', new Date());
    expect((await hashOnce()).reads).toBe(2);
    expect((await hashOnce()).reads).toBe(1);
  });

  it('ignores a corrupt or foreign cache file and hashes everything', async () => {
    const { hashOnce } = make({ 'index.html': 'a', 'app.css': 'one' });
    const { cacheFile } = await hashOnce();
    for (const corrupt of [
      '{"format": "tape-hash-cache-1", "files": ',
      'null',
      JSON.stringify({ ...JSON.parse(await readFile(cacheFile, 'utf8')), segmentBytes: 1 }),
      JSON.stringify({
        ...JSON.parse(await readFile(cacheFile, 'utf8')),
        files: { 'app.css': [3, '1', '2', 'not hex', -1], 'index.html': 'x' },
      }),
    ]) {
      await writeFile(cacheFile, corrupt);
      expect((await hashOnce()).reads).toBe(2);
    }
  });

  it('drops entries of files gone from the site and leaves no temporary file', async () => {
    const { hashOnce, root, cacheDir } = make({ 'index.html': 'a', 'old.css': 'x' });
    await hashOnce();
    rmSync(join(root, 'old.css'));
    const { cacheFile } = await hashOnce();
    const body = JSON.parse(await readFile(cacheFile, 'utf8')) as { files: object };
    expect(Object.keys(body.files)).toEqual(['index.html']);
    expect(readdirSync(join(cacheDir, 'deploy-hashes')).filter((f) => f.endsWith('.tmp'))).toEqual(
      [],
    );
  });

  it('saves nothing, without throwing, where the cache cannot be written', async () => {
    const { root } = make({ 'index.html': 'a' });
    const blocker = join(root, 'index.html'); // a file where the cache wants a directory
    const cache = await HashCache.open(blocker, root, SEGMENT);
    expect(await cache.save()).toBe(false);
  });
});

describe('userCacheDir', () => {
  it('is $XDG_CACHE_HOME/tape when absolute, else ~/.cache/tape', () => {
    expect(userCacheDir({ XDG_CACHE_HOME: '/x/cache' })).toBe('/x/cache/tape');
    expect(userCacheDir({ XDG_CACHE_HOME: 'relative' })).toMatch(/\/\.cache\/tape$/);
    expect(userCacheDir({})).toMatch(/\/\.cache\/tape$/);
  });
});
