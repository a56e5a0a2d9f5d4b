import { createHash } from 'node:crypto';
import { SiteDirectory } from './site-directory';
import { SiteDirectoryOptions } from './site-directory-options';
import { testDirectoryOptions } from './site-directory-options.spec-support';
import { SiteSnapshot } from './site-snapshots';
import { SiteTarget } from './site-routing';
import { SiteObject, SiteRead, TapeStatus } from './site-source';
import { NamesOnlySource } from './names-only-source.spec-support';

const TAPE = 'TapeAddress1111111111111111111111111111111';

function object(
  name: string,
  body: string | Buffer,
  contentType = 'text/plain',
): SiteObject & { body: Buffer } {
  const bytes = Buffer.isBuffer(body) ? body : Buffer.from(body);
  const commitment = createHash('sha256').update(name).update(bytes).digest();
  return {
    name,
    kind: 'blob',
    commitment,
    commitmentHex: commitment.toString('hex'),
    size: bytes.length,
    contentType,
    body: bytes,
  };
}

/** A chain and store in memory that records its reads and can be made slow or failing. */
class FakeSource extends NamesOnlySource {
  status: TapeStatus = { kind: 'active', expiresInMs: 3_600_000 };
  objects: (SiteObject & { body: Buffer })[] = [];
  /** Every read: the names asked for, and whether the tape's status was. */
  reads: { tape: string; names: string[]; withStatus: boolean }[] = [];
  bodyReads = 0;
  failing: Error | null = null;
  gate: Promise<void> | null = null;

  get statusReads(): number {
    return this.reads.filter((r) => r.withStatus).length;
  }

  async read(tape: string, names: readonly string[], withStatus: boolean): Promise<SiteRead> {
    this.reads.push({ tape, names: [...names], withStatus });
    if (this.gate) await this.gate;
    if (this.failing) throw this.failing;
    return {
      status: withStatus ? this.status : undefined,
      objects: names.map((n) => this.objects.find((o) => o.name === n) ?? null),
    };
  }

  async readWhole(o: SiteObject): Promise<Buffer> {
    this.bodyReads++;
    const found = this.objects.find((x) => x.commitmentHex === o.commitmentHex);
    if (!found) throw new Error('track not in store');
    return found.body;
  }
}

function newTestDirectory(overrides: Partial<SiteDirectoryOptions> = {}) {
  const source = new FakeSource();
  const clock = { ms: 0 };
  const warnings: string[] = [];
  const sut = new SiteDirectory(source, {
    ...testDirectoryOptions(clock, warnings),
    ...overrides,
  });
  const advanceSecs = (s: number) => (clock.ms += s * 1000);
  /** The snapshot and the answer for a path, as a request gets them. */
  const resolve = async (rawPath: string, tape = TAPE) => {
    const snapshot = await sut.lookup(tape, rawPath);
    return { snapshot, target: await sut.route(snapshot, rawPath) };
  };
  return { sut, source, warnings, advanceSecs, resolve };
}

async function snapshot(sut: SiteDirectory): Promise<SiteSnapshot> {
  return await sut.lookup(TAPE);
}

/** `200 name`, `404 name` or the kind of answer. */
function answer(target: SiteTarget): string {
  return target.kind === 'object' ? `${target.status} ${target.object.name}` : target.kind;
}

/** Served bytes' size, for tests that change a file. */
function sizeOf(target: SiteTarget): number | undefined {
  return target.kind === 'object' ? target.object.size : undefined;
}

const settled = () => new Promise((r) => setImmediate(r));

describe('SiteDirectory: a site', () => {
  it('reads a tape once and answers from memory (synchronously) while fresh', async () => {
    const { sut, source, advanceSecs, resolve } = newTestDirectory();
    source.objects = [object('index.html', '<h1>hi</h1>')];
    const first = await resolve('/');
    expect(sizeOf(first.target)).toBe(11);
    advanceSecs(30);
    const second = sut.lookup(TAPE, '/');
    expect(second).toBe(first.snapshot);
    const target = sut.route(first.snapshot, '/');
    expect(target).not.toBeInstanceOf(Promise);
    expect(target).toBe(first.target);
    expect(source.reads).toHaveLength(1);
  });

  it('coalesces concurrent lookups of one tape into one read', async () => {
    const { sut, source } = newTestDirectory();
    let open!: () => void;
    source.gate = new Promise((r) => (open = r));
    const lookups = Array.from({ length: 50 }, async () => sut.lookup(TAPE));
    await settled();
    open();
    const results = await Promise.all(lookups);
    expect(new Set(results).size).toBe(1);
    expect(source.reads).toHaveLength(1);
  });

  it('sees a redeploy within the max-age (60 s by default)', async () => {
    const { source, advanceSecs, resolve } = newTestDirectory();
    source.objects = [object('index.html', 'v1')];
    await resolve('/');
    source.objects = [object('index.html', 'version 2')];
    advanceSecs(44);
    expect(sizeOf((await resolve('/')).target)).toBe(2);
    advanceSecs(17);
    expect(sizeOf((await resolve('/')).target)).toBe(9);
  });

  it('refreshes a hot site in the background before it goes stale', async () => {
    const { sut, source, advanceSecs } = newTestDirectory();
    source.objects = [object('a.txt', 'a')];
    await snapshot(sut);
    advanceSecs(46);
    const stillCached = sut.lookup(TAPE);
    expect(stillCached).not.toBeInstanceOf(Promise);
    await settled();
    expect(source.statusReads).toBe(2);
    await settled();
    advanceSecs(30);
    // The background refresh at 46 s keeps the site fresh until 106 s: no wait at 76 s.
    expect(sut.lookup(TAPE)).not.toBeInstanceOf(Promise);
    expect(source.statusReads).toBe(2);
  });

  it('caches no longer than a shorter site max-age, and at least one second', async () => {
    const { sut, source, advanceSecs } = newTestDirectory();
    source.objects = [object('_site.json', JSON.stringify({ max_age_secs: 10 }))];
    await snapshot(sut);
    advanceSecs(10);
    source.objects = [object('_site.json', JSON.stringify({ max_age_secs: 0 }))];
    const reload = sut.lookup(TAPE);
    expect(reload).toBeInstanceOf(Promise);
    expect((await reload).policy.maxAgeSecs).toBe(0);
    advanceSecs(0.5);
    expect(sut.lookup(TAPE)).not.toBeInstanceOf(Promise);
    advanceSecs(0.6);
    expect(sut.lookup(TAPE)).toBeInstanceOf(Promise);
  });

  it('never caches longer than name_cache_secs even with a long max-age', async () => {
    const { sut, source, advanceSecs } = newTestDirectory({ nameCacheSecs: 20 });
    source.objects = [object('_site.json', JSON.stringify({ max_age_secs: 31536000 }))];
    const first = await snapshot(sut);
    expect(first.policy.cacheControl).toBe('public, max-age=31536000, must-revalidate');
    advanceSecs(20);
    expect(sut.lookup(TAPE)).toBeInstanceOf(Promise);
  });

  it('applies _site.json over the gateway settings', async () => {
    const { sut, source, warnings } = newTestDirectory();
    source.objects = [
      object(
        '_site.json',
        JSON.stringify({
          spa_fallback: true,
          max_age_secs: 300,
          cors_origins: ['https://reader.example'],
          connect_origins: ['wss://live.example'],
          future_field: { anything: 1 },
        }),
      ),
    ];
    const { policy } = await snapshot(sut);
    expect(policy.spaFallback).toBe(true);
    expect(policy.maxAgeSecs).toBe(300);
    expect([...policy.corsOrigins]).toEqual(['https://reader.example']);
    expect(policy.contentSecurityPolicy).toContain(
      "connect-src 'self' https://api.example wss://live.example",
    );
    expect(warnings).toEqual([]);
  });

  it('ignores _site.json when tenant_overrides is false, without reading it', async () => {
    const { sut, source } = newTestDirectory({ tenantOverrides: false });
    source.objects = [
      object('_site.json', JSON.stringify({ spa_fallback: true, max_age_secs: 5 })),
    ];
    const { policy } = await snapshot(sut);
    expect(policy.spaFallback).toBe(false);
    expect(policy.maxAgeSecs).toBe(60);
    expect(source.reads[0].names).not.toContain('_site.json');
    expect(source.bodyReads).toBe(0);
  });

  it('ignores a broken or oversized _site.json with one warning per version', async () => {
    const { sut, source, warnings, advanceSecs } = newTestDirectory();
    source.objects = [object('_site.json', '{ not json')];
    expect((await snapshot(sut)).policy.maxAgeSecs).toBe(60);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(/_site\.json is not JSON/);
    advanceSecs(61);
    await snapshot(sut);
    expect(warnings).toHaveLength(1);

    source.objects = [object('_site.json', Buffer.alloc(64 * 1024 + 1, 32))];
    advanceSecs(61);
    expect((await snapshot(sut)).policy.maxAgeSecs).toBe(60);
    expect(warnings[1]).toMatch(/over the 65536-byte limit/);
    expect(source.bodyReads).toBe(2);
  });

  it('survives a _site.json whose bytes cannot be read', async () => {
    const { sut, source, warnings } = newTestDirectory();
    source.objects = [object('_site.json', '{"spa_fallback":true}')];
    source.readWhole = async () => {
      throw new Error('track failed verification');
    };
    const { policy } = await snapshot(sut);
    expect(policy.spaFallback).toBe(false);
    expect(warnings[0]).toMatch(/could not be read \(track failed verification\)/);
  });

  it('reports unknown and expired tapes', async () => {
    const { sut, source } = newTestDirectory();
    source.objects = [object('index.html', 'x')];
    source.status = { kind: 'unknown' };
    expect((await snapshot(sut)).status).toBe('unknown');
    sut.invalidate(TAPE);
    source.status = { kind: 'expired' };
    expect((await snapshot(sut)).status).toBe('expired');
  });

  it('remembers an unknown tape, and the names read with it, only briefly', async () => {
    const { sut, source, advanceSecs, resolve } = newTestDirectory();
    source.status = { kind: 'unknown' };
    await sut.lookup(TAPE, '/');
    advanceSecs(4);
    expect(sut.lookup(TAPE)).not.toBeInstanceOf(Promise);
    advanceSecs(1);
    // Created a moment later: its index.html is not hidden by the miss read with the tape.
    source.status = { kind: 'active', expiresInMs: 1000 };
    source.objects = [object('index.html', 'new')];
    const now = await resolve('/');
    expect(now.snapshot.status).toBe('active');
    expect(answer(now.target)).toBe('200 index.html');
  });

  it('knows when an active tape expires, on the directory clock', async () => {
    const { sut, source } = newTestDirectory();
    source.status = { kind: 'active', expiresInMs: 1500 };
    const snap = await snapshot(sut);
    expect(snap.expiresAt).toBe(1500);
  });

  it('serves what it read for a while when the chain fails, then gives up', async () => {
    const { source, warnings, advanceSecs, resolve } = newTestDirectory();
    source.objects = [object('index.html', 'x')];
    const first = await resolve('/');
    source.failing = new Error('connect ECONNREFUSED');
    advanceSecs(61);
    const stale = await resolve('/');
    expect(stale.snapshot).toBe(first.snapshot);
    expect(answer(stale.target)).toBe('200 index.html');
    expect(warnings[0]).toMatch(/cannot refresh \(connect ECONNREFUSED\); serving what was read/);
    advanceSecs(600);
    await expect(resolve('/')).rejects.toThrow('ECONNREFUSED');
  });

  it('fails a first lookup when the chain fails, and retries on the next', async () => {
    const { sut, source } = newTestDirectory();
    source.failing = new Error('rpc down');
    await expect(snapshot(sut)).rejects.toThrow('rpc down');
    source.failing = null;
    expect((await snapshot(sut)).status).toBe('active');
    expect(source.reads).toHaveLength(2);
  });

  it('keeps at most maxSites tapes', async () => {
    const { sut, source } = newTestDirectory({ maxSites: 2 });
    await sut.lookup('a');
    await sut.lookup('b');
    await sut.lookup('c');
    expect(sut.lookup('b')).not.toBeInstanceOf(Promise);
    expect(sut.lookup('c')).not.toBeInstanceOf(Promise);
    expect(sut.lookup('a')).toBeInstanceOf(Promise);
    await settled();
    expect(source.reads).toHaveLength(4);
  });
});

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
