import { SiteSnapshot } from './site-snapshots';
import { SiteTarget } from './site-routing';
import { TAPE, object, newTestDirectory, answer, settled } from './site-directory.spec-support';

describe('SiteDirectory: names', () => {
  it('reads a cold site with the names of the path in one request, never a listing', async () => {
    const { source, resolve } = newTestDirectory();
    source.objects = [object('docs/index.html', 'docs'), object('404.html', 'nf')];
    const { target } = await resolve('/docs');
    expect(answer(target)).toBe('add-slash');
    // One read: the tape, _site.json, and every name `/docs` may map to (the SPA fallback's
    // index.html too, as _site.json is not known yet).
    expect(source.reads).toEqual([
      {
        tape: TAPE,
        withStatus: true,
        names: ['_site.json', 'docs', 'docs/index.html', 'docs.html', 'index.html', '404.html'],
      },
    ]);
  });

  it('answers a cached path synchronously, with no read', async () => {
    const { sut, source, resolve } = newTestDirectory();
    source.objects = [object('app.js', 'js')];
    const { snapshot: snap } = await resolve('/app.js');
    for (let i = 0; i < 100; i++) {
      expect(answer(sut.route(snap, '/app.js') as SiteTarget)).toBe('200 app.js');
    }
    expect(source.reads).toHaveLength(1);
  });

  it('reads only the names a new path is missing, without the tape', async () => {
    const { sut, source, resolve } = newTestDirectory();
    source.objects = [object('index.html', 'i'), object('app.js', 'js'), object('404.html', 'nf')];
    const { snapshot: snap } = await resolve('/');
    const target = sut.route(snap, '/app.js');
    expect(target).toBeInstanceOf(Promise);
    expect(answer(await target)).toBe('200 app.js');
    // 404.html was read with `/`: only the two new names are asked for.
    expect(source.reads[1]).toEqual({
      tape: TAPE,
      withStatus: false,
      names: ['app.js', 'app.js/index.html'],
    });
  });

  it('caches misses: a missing path is asked for once per lifetime', async () => {
    const { sut, source, advanceSecs, resolve } = newTestDirectory();
    source.objects = [object('index.html', 'i'), object('404.html', 'nf')];
    await resolve('/');
    expect(answer((await resolve('/missing.png')).target)).toBe('404 404.html');
    const reads = source.reads.length;
    advanceSecs(10);
    const snap = sut.lookup(TAPE) as SiteSnapshot;
    expect(answer(sut.route(snap, '/missing.png') as SiteTarget)).toBe('404 404.html');
    expect(source.reads).toHaveLength(reads);
    // Deployed meanwhile: seen once the miss has expired.
    source.objects.push(object('missing.png', 'png'));
    advanceSecs(51);
    expect(answer((await resolve('/missing.png')).target)).toBe('200 missing.png');
  });

  it('expires names with the site rule and refreshes names in use ahead', async () => {
    const { sut, source, advanceSecs, resolve } = newTestDirectory();
    source.objects = [object('index.html', 'v1'), object('a.css', 'css')];
    await resolve('/a.css');
    advanceSecs(46);
    const snap = sut.lookup(TAPE) as SiteSnapshot;
    // Past 3/4 of the lifetime: served from memory, read again in the background (in the same
    // read as the site's own refresh).
    expect(answer(sut.route(snap, '/a.css') as SiteTarget)).toBe('200 a.css');
    await settled();
    expect(source.reads).toHaveLength(2);
    expect(source.reads[1].names).toEqual(
      expect.arrayContaining(['a.css', 'a.css/index.html', '404.html']),
    );
    await settled();
    advanceSecs(30);
    // Refreshed at 46 s: fresh until 106 s.
    const later = sut.lookup(TAPE) as SiteSnapshot;
    expect(sut.route(later, '/a.css')).not.toBeInstanceOf(Promise);
  });

  it('loads one name once however many requests wait for it', async () => {
    const { sut, source, resolve } = newTestDirectory();
    source.objects = [object('index.html', 'i'), object('big.js', 'js')];
    const { snapshot: snap } = await resolve('/');
    let open!: () => void;
    source.gate = new Promise((r) => (open = r));
    const waits = Array.from({ length: 50 }, () => sut.route(snap, '/big.js'));
    await settled();
    open();
    const targets = await Promise.all(waits as Promise<SiteTarget>[]);
    expect(new Set(targets.map(answer))).toEqual(new Set(['200 big.js']));
    expect(source.reads).toHaveLength(2);
  });

  it('sends the misses of requests that arrive together in one read', async () => {
    const { sut, source, resolve } = newTestDirectory();
    source.objects = [object('index.html', 'i'), object('a.css', 'a'), object('b.js', 'b')];
    const { snapshot: snap } = await resolve('/');
    const [a, b, c] = await Promise.all([
      sut.route(snap, '/a.css'),
      sut.route(snap, '/b.js'),
      sut.route(snap, '/c.png'),
    ]);
    expect([answer(a), answer(b), answer(c)]).toEqual(['200 a.css', '200 b.js', 'not-found']);
    expect(source.reads).toHaveLength(2);
    expect(source.reads[1].names.sort()).toEqual(
      ['a.css', 'a.css/index.html', 'b.js', 'b.js/index.html', 'c.png', 'c.png/index.html'].sort(),
    );
  });

  it('joins a path that arrives while the site is being read', async () => {
    const { sut, source } = newTestDirectory();
    source.objects = [object('index.html', 'i')];
    let open!: () => void;
    source.gate = new Promise((r) => (open = r));
    const first = sut.lookup(TAPE, '/');
    await settled();
    const second = sut.lookup(TAPE, '/');
    open();
    const [s1, s2] = await Promise.all([first, second]);
    expect(s1).toBe(s2);
    expect(answer(await sut.route(s1, '/'))).toBe('200 index.html');
    expect(source.reads).toHaveLength(1);
  });

  it('looks nothing up for a refused path', async () => {
    const { sut, source, resolve } = newTestDirectory();
    const { snapshot: snap } = await resolve('/');
    const reads = source.reads.length;
    expect(sut.route(snap, '/a/../b')).toMatchObject({ kind: 'bad-path' });
    expect(sut.route(snap, '/%ZZ')).toMatchObject({ kind: 'bad-path' });
    expect(source.reads).toHaveLength(reads);
  });

  it('serves names it read for a while when the chain fails, then gives up', async () => {
    const { sut, source, warnings, advanceSecs, resolve } = newTestDirectory({
      nameCacheSecs: 300,
    });
    source.objects = [object('index.html', 'i'), object('_site.json', '{"max_age_secs":300}')];
    await resolve('/');
    advanceSecs(10);
    const snap = sut.lookup(TAPE) as SiteSnapshot;
    await sut.route(snap, '/a.css');
    source.failing = new Error('rpc down');
    advanceSecs(390);
    // The site and `/a.css`'s names were read 400 and 390 s ago, out of date but younger than
    // 10 minutes: served (5 s at a time) while the chain is away.
    expect(answer((await resolve('/a.css')).target)).toBe('not-found');
    expect(warnings.some((w) => /cannot refresh \(rpc down\)/.test(w))).toBe(true);
    advanceSecs(205);
    await expect(resolve('/a.css')).rejects.toThrow('rpc down');
  });

  it('keeps at most maxNames names, the least recently used going first', async () => {
    const { sut, source, resolve } = newTestDirectory({ maxNames: 4 });
    source.objects = [object('index.html', 'i')];
    const { snapshot: snap } = await resolve('/');
    await sut.route(snap, '/a.css');
    await sut.route(snap, '/b.css');
    // index.html, then a.css went to make room for `/b.css`'s names; 404.html, used by every
    // miss, stays.
    expect(sut.route(snap, '/b.css')).not.toBeInstanceOf(Promise);
    const reads = source.reads.length;
    expect(sut.route(snap, '/a.css')).toBeInstanceOf(Promise);
    await settled();
    expect(source.reads).toHaveLength(reads + 1);
    expect(source.reads[reads].names).toEqual(['a.css']);
  });

  it('remembers the answers of named paths only, so random paths cannot grow that memo', async () => {
    const { sut, source, resolve } = newTestDirectory();
    source.objects = [
      object('index.html', 'i'),
      object('app.js', 'js'),
      object('docs/index.html', 'd'),
      object('_site.json', '{"spa_fallback":true}'),
    ];
    const { snapshot: snap } = await resolve('/');
    for (let i = 0; i < 200; i++) await sut.route(snap, `/random/${i}`);
    for (let i = 0; i < 200; i++) await sut.route(snap, `/missing-${i}.png`);
    expect(snap.routes.size).toBe(1);
    const app = await sut.route(snap, '/app.js');
    expect(sut.route(snap, '/app.js')).toBe(app);
    await sut.route(snap, '/docs');
    await sut.route(snap, '/%61pp.js');
    expect(snap.routes.size).toBe(3);
  });
});
