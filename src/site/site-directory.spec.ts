import {
  TAPE,
  object,
  newTestDirectory,
  snapshot,
  answer,
  sizeOf,
  settled,
} from './site-directory.spec-support';

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
