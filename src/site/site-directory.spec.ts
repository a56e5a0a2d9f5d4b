import { createHash } from 'node:crypto';
import { parseOriginList } from './origin';
import { SiteDirectory, SiteDirectoryOptions, SiteSnapshot } from './site-directory';
import { SiteObject, SiteSource, TapeStatus } from './site-source';

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

/** A chain and store in memory that counts its calls and can be made slow or failing. */
class FakeSource extends SiteSource {
  status: TapeStatus = { kind: 'active', expiresInMs: 3_600_000 };
  objects: (SiteObject & { body: Buffer })[] = [];
  listCalls = 0;
  statusCalls = 0;
  reads = 0;
  failing: Error | null = null;
  gate: Promise<void> | null = null;

  async tapeStatus(): Promise<TapeStatus> {
    this.statusCalls++;
    if (this.gate) await this.gate;
    if (this.failing) throw this.failing;
    return this.status;
  }

  async listObjects(): Promise<SiteObject[]> {
    this.listCalls++;
    if (this.gate) await this.gate;
    if (this.failing) throw this.failing;
    return [...this.objects];
  }

  async readWhole(o: SiteObject): Promise<Buffer> {
    this.reads++;
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
    defaults: {
      spaFallback: false,
      maxAgeSecs: 60,
      corsOrigins: parseOriginList(['https://gateway-reader.example'], false),
      connectOrigins: parseOriginList(['https://api.example'], false),
    },
    tenantOverrides: true,
    allowAnyOrigin: false,
    nameCacheSecs: 60,
    now: () => clock.ms,
    warn: (m) => warnings.push(m),
    ...overrides,
  });
  const advanceSecs = (s: number) => (clock.ms += s * 1000);
  return { sut, source, warnings, advanceSecs };
}

async function snapshot(sut: SiteDirectory): Promise<SiteSnapshot> {
  return await sut.lookup(TAPE);
}

describe('SiteDirectory', () => {
  it('lists a tape once and answers from memory (synchronously) while fresh', async () => {
    const { sut, source, advanceSecs } = newTestDirectory();
    source.objects = [object('index.html', '<h1>hi</h1>')];
    const first = await snapshot(sut);
    expect(first.objects.get('index.html')?.size).toBe(11);
    advanceSecs(30);
    const second = sut.lookup(TAPE);
    expect(second).not.toBeInstanceOf(Promise);
    expect(second).toBe(first);
    expect(source.listCalls).toBe(1);
  });

  it('coalesces concurrent lookups of one tape into one listing', async () => {
    const { sut, source } = newTestDirectory();
    let open!: () => void;
    source.gate = new Promise((r) => (open = r));
    const lookups = Array.from({ length: 50 }, async () => sut.lookup(TAPE));
    open();
    const results = await Promise.all(lookups);
    expect(new Set(results).size).toBe(1);
    expect(source.listCalls).toBe(1);
    expect(source.statusCalls).toBe(1);
  });

  it('sees a redeploy within the max-age (60 s by default)', async () => {
    const { sut, source, advanceSecs } = newTestDirectory();
    source.objects = [object('index.html', 'v1')];
    await snapshot(sut);
    source.objects = [object('index.html', 'version 2')];
    advanceSecs(59);
    expect((sut.lookup(TAPE) as SiteSnapshot).objects.get('index.html')?.size).toBe(2);
    advanceSecs(1.5);
    expect((await snapshot(sut)).objects.get('index.html')?.size).toBe(9);
  });

  it('refreshes a hot site in the background before it goes stale', async () => {
    const { sut, source, advanceSecs } = newTestDirectory();
    source.objects = [object('a.txt', 'a')];
    await snapshot(sut);
    advanceSecs(46);
    const stillCached = sut.lookup(TAPE);
    expect(stillCached).not.toBeInstanceOf(Promise);
    expect(source.listCalls).toBe(2);
    await new Promise((r) => setImmediate(r));
    advanceSecs(30);
    // The background refresh at 46 s keeps the site fresh until 106 s: no wait at 76 s.
    expect(sut.lookup(TAPE)).not.toBeInstanceOf(Promise);
    expect(source.listCalls).toBe(2);
  });

  it('caches names no longer than a shorter site max-age, and at least one second', async () => {
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

  it('never caches names longer than name_cache_secs even with a long max-age', async () => {
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
    expect(source.reads).toBe(0);
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
    expect(source.reads).toBe(2);
  });

  it('survives a _site.json whose bytes cannot be read', async () => {
    const { sut, source, warnings } = newTestDirectory();
    const file = object('_site.json', '{"spa_fallback":true}');
    source.objects = [file];
    source.readWhole = async () => {
      throw new Error('track failed verification');
    };
    const { policy, objects } = await snapshot(sut);
    expect(policy.spaFallback).toBe(false);
    expect(objects.has('_site.json')).toBe(true);
    expect(warnings[0]).toMatch(/could not be read \(track failed verification\)/);
  });

  it('reports unknown and expired tapes, with no objects', async () => {
    const { sut, source } = newTestDirectory();
    source.objects = [object('index.html', 'x')];
    source.status = { kind: 'unknown' };
    expect((await snapshot(sut)).status).toBe('unknown');
    sut.invalidate(TAPE);
    source.status = { kind: 'expired' };
    const expired = await snapshot(sut);
    expect(expired.status).toBe('expired');
    expect(expired.objects.size).toBe(0);
  });

  it('remembers an unknown tape only briefly', async () => {
    const { sut, source, advanceSecs } = newTestDirectory();
    source.status = { kind: 'unknown' };
    await snapshot(sut);
    advanceSecs(4);
    expect(sut.lookup(TAPE)).not.toBeInstanceOf(Promise);
    advanceSecs(1);
    source.status = { kind: 'active', expiresInMs: 1000 };
    expect((await snapshot(sut)).status).toBe('active');
  });

  it('knows when an active tape expires, on the directory clock', async () => {
    const { sut, source } = newTestDirectory();
    source.status = { kind: 'active', expiresInMs: 1500 };
    const snap = await snapshot(sut);
    expect(snap.expiresAt).toBe(1500);
  });

  it('serves the last list for a while when the chain fails, then gives up', async () => {
    const { sut, source, warnings, advanceSecs } = newTestDirectory();
    source.objects = [object('index.html', 'x')];
    const first = await snapshot(sut);
    source.failing = new Error('connect ECONNREFUSED');
    advanceSecs(61);
    expect(await snapshot(sut)).toBe(first);
    expect(warnings[0]).toMatch(/cannot refresh \(connect ECONNREFUSED\)/);
    advanceSecs(600);
    await expect(snapshot(sut)).rejects.toThrow('ECONNREFUSED');
  });

  it('fails a first lookup when the chain fails, and retries on the next', async () => {
    const { sut, source } = newTestDirectory();
    source.failing = new Error('rpc down');
    await expect(snapshot(sut)).rejects.toThrow('rpc down');
    source.failing = null;
    expect((await snapshot(sut)).status).toBe('active');
    expect(source.listCalls).toBe(2);
  });

  it('keeps at most maxSites tapes', async () => {
    const { sut, source } = newTestDirectory({ maxSites: 2 });
    await sut.lookup('a');
    await sut.lookup('b');
    await sut.lookup('c');
    expect(sut.lookup('b')).not.toBeInstanceOf(Promise);
    expect(sut.lookup('c')).not.toBeInstanceOf(Promise);
    expect(sut.lookup('a')).toBeInstanceOf(Promise);
    expect(source.listCalls).toBe(4);
  });
});
