import { send, statuses, xff } from './support/clients/metering-http';
import { MeteringTestApp, startMeteringTestApp } from './support/apps/metering-app';

// The e2e project's testTimeout in jest.config.js is not applied (Jest reads it globally only).
jest.setTimeout(120_000);

/** Small budgets so each is reached in a few requests; one window lasts a minute. */
const SMALL_BUDGETS = {
  site: { limit: 5, ttl_secs: 60 },
  object: { limit: 4, ttl_secs: 60 },
  object_bytes: 1000,
  object_bytes_ttl_secs: 60,
  upload: { limit: 3, ttl_secs: 60 },
  s3_write: { limit: 2, ttl_secs: 60 },
};

describe('metering over HTTP, in-memory counters', () => {
  /** Trusts 127.0.0.1, so each test picks its own client with X-Forwarded-For. */
  let proxied: MeteringTestApp;
  /** Trusts nobody: forwarding headers must change nothing. */
  let direct: MeteringTestApp;

  beforeAll(async () => {
    proxied = await startMeteringTestApp({ ...SMALL_BUDGETS, trusted_proxies: ['127.0.0.1/32'] });
    direct = await startMeteringTestApp({ ...SMALL_BUDGETS, upload: { limit: 2, ttl_secs: 1 } });
  });

  afterAll(async () => {
    await proxied?.close();
    await direct?.close();
  });

  it('meters the site budget: RateLimit headers, then 429 with Retry-After and the error body', async () => {
    const client = xff('198.51.100.1');
    for (let i = 1; i <= 5; i++) {
      const ok = await send(`${proxied.url}/site/tape/page-${i}.html`, { headers: client });
      expect(ok.status).toBe(200);
      expect(ok.headers.get('ratelimit-limit')).toBe('5');
      expect(ok.headers.get('ratelimit-remaining')).toBe(String(5 - i));
      expect(Number(ok.headers.get('ratelimit-reset'))).toBeGreaterThanOrEqual(1);
      expect(Number(ok.headers.get('ratelimit-reset'))).toBeLessThanOrEqual(60);
      expect(ok.headers.get('retry-after')).toBeNull();
    }
    const refused = await send(`${proxied.url}/site/tape/index.html`, { headers: client });
    expect(refused.status).toBe(429);
    expect(refused.headers.get('content-type')).toMatch(/^application\/json/);
    expect(JSON.parse(refused.text)).toEqual({
      error: { code: 'too_many_requests', message: expect.stringMatching(/site reads/) },
    });
    const retryAfter = Number(refused.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(60);
    expect(refused.headers.get('ratelimit-limit')).toBe('5');
    expect(refused.headers.get('ratelimit-remaining')).toBe('0');
    expect(Number(refused.headers.get('ratelimit-reset'))).toBe(retryAfter);
    expect(refused.headers.get('cache-control')).toBe('no-store');
  });

  it('keeps each budget apart and enforces its own limit', async () => {
    const client = xff('198.51.100.2');
    expect(await statuses(6, `${proxied.url}/site/t/a.css`, () => client)).toEqual([
      200, 200, 200, 200, 200, 429,
    ]);
    expect(await statuses(5, `${proxied.url}/object/0`, () => client)).toEqual([
      200, 200, 200, 200, 429,
    ]);
    expect(await statuses(4, `${proxied.url}/upload/f`, () => client, 'PUT')).toEqual([
      200, 200, 200, 429,
    ]);
    const upload = await send(`${proxied.url}/upload/f`, { method: 'PUT', headers: client });
    expect(JSON.parse(upload.text).error.message).toMatch(/uploads/);
  });

  it('meters every route of a controller decorated as a whole; a route may name another budget', async () => {
    const client = xff('198.51.100.7');
    expect(await statuses(4, `${proxied.url}/bulk/f`, () => client, 'PUT')).toEqual([
      200, 200, 200, 429,
    ]);
    const listing = await send(`${proxied.url}/bulk/f`, { headers: client });
    expect(listing.status).toBe(200);
    expect(listing.headers.get('ratelimit-limit')).toBe('5'); // the site budget
  });

  it('answers 503 SlowDown on the S3-like listener through the programmatic API', async () => {
    const client = xff('198.51.100.3');
    const put = (name: string) =>
      send(`${proxied.s3Url}/bucket/${name}`, { method: 'PUT', headers: client, body: 'x' });
    expect((await put('a')).status).toBe(200);
    expect((await put('b')).status).toBe(200);
    const slow = await put('c');
    expect(slow.status).toBe(503);
    expect(slow.text).toContain('<Code>SlowDown</Code>');
    expect(Number(slow.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    // Another client has its own S3 budget.
    const other = await send(`${proxied.s3Url}/bucket/a`, {
      method: 'PUT',
      headers: xff('198.51.100.33'),
      body: 'x',
    });
    expect(other.status).toBe(200);
  });

  it('meters object bytes: refuses past the byte budget, gives back refused charges', async () => {
    const client = xff('198.51.100.4');
    const first = await send(`${proxied.url}/object/600`, { headers: client });
    expect(first.status).toBe(200);
    expect(first.text.length).toBe(600);
    const tooMuch = await send(`${proxied.url}/object/600`, { headers: client });
    expect(tooMuch.status).toBe(429);
    expect(tooMuch.headers.get('ratelimit-limit')).toBe('1000');
    expect(tooMuch.headers.get('ratelimit-remaining')).toBe('400');
    expect(Number(tooMuch.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(JSON.parse(tooMuch.text).error).toEqual({
      code: 'too_many_requests',
      message: expect.stringMatching(/object bytes/),
    });
    // The refused 600 bytes were not counted: 400 more still fit, then nothing.
    expect((await send(`${proxied.url}/object/400`, { headers: client })).status).toBe(200);
    expect((await send(`${proxied.url}/object/1`, { headers: client })).status).toBe(429);
  });

  it('serves one object larger than the whole byte budget in a fresh window, then refuses', async () => {
    const client = xff('198.51.100.5');
    const big = await send(`${proxied.url}/object/5000`, { headers: client });
    expect(big.status).toBe(200);
    expect(big.text.length).toBe(5000);
    expect((await send(`${proxied.url}/object/1`, { headers: client })).status).toBe(429);
  });

  it('does not meter undecorated routes or /healthz', async () => {
    const client = xff('198.51.100.6');
    const codes = [
      ...(await statuses(30, `${proxied.url}/open`, () => client)),
      ...(await statuses(30, `${proxied.url}/healthz`, () => client)),
    ];
    expect(new Set(codes)).toEqual(new Set([200]));
    const open = await send(`${proxied.url}/healthz`, { headers: client });
    expect(open.headers.get('ratelimit-limit')).toBeNull();
  });

  it('ignores spoofed X-Forwarded-For and Forwarded from an untrusted peer', async () => {
    const spoof = (i: number) => ({
      'x-forwarded-for': `203.0.113.${i}`,
      forwarded: `for=203.0.113.${i}`,
    });
    expect((await send(`${direct.url}/metering/whoami`, { headers: spoof(1) })).text).toBe(
      '{"client":"127.0.0.1"}',
    );
    expect(await statuses(7, (i) => `${direct.url}/site/t/${i}`, spoof)).toEqual([
      200, 200, 200, 200, 200, 429, 429,
    ]);
  });

  it('starts a new window when the old one ends', async () => {
    expect(await statuses(3, `${direct.url}/upload/x`, () => ({}), 'PUT')).toEqual([200, 200, 429]);
    await new Promise((r) => setTimeout(r, 1100));
    expect(await statuses(1, `${direct.url}/upload/x`, () => ({}), 'PUT')).toEqual([200]);
  });

  it('walks a trusted chain from the right: the first untrusted hop is the client', async () => {
    const whoami = async (chain: string) =>
      (
        JSON.parse(
          (await send(`${proxied.url}/metering/whoami`, { headers: xff(chain) })).text,
        ) as {
          client: string;
        }
      ).client;
    expect(await whoami('203.0.113.7')).toBe('203.0.113.7');
    expect(await whoami('6.6.6.6, 203.0.113.7, 127.0.0.1')).toBe('203.0.113.7');
    expect(await whoami('127.0.0.1, 127.0.0.1')).toBe('127.0.0.1');
    expect(await whoami('203.0.113.7, not-an-ip')).toBe('127.0.0.1');
    expect(await whoami('::ffff:203.0.113.9')).toBe('203.0.113.9');

    // Whatever a client writes left of its own address lands in its own bucket.
    const chains = (i: number) => xff(`10.${i}.0.1, 203.0.113.7, 127.0.0.1`);
    expect(await statuses(6, (i) => `${proxied.url}/site/t/${i}`, chains)).toEqual([
      200, 200, 200, 200, 200, 429,
    ]);
    expect((await send(`${proxied.url}/site/t/x`, { headers: xff('203.0.113.8') })).status).toBe(
      200,
    );
  });

  it('keys IPv6 clients by their /64', async () => {
    const sameNet = (i: number) => xff(`2001:db8:1:2::${i + 1}`);
    expect(await statuses(6, `${proxied.url}/site/t/6`, sameNet)).toEqual([
      200, 200, 200, 200, 200, 429,
    ]);
    const otherNet = await send(`${proxied.url}/site/t/6`, { headers: xff('2001:db8:1:3::1') });
    expect(otherNet.status).toBe(200);
    const whoami = await send(`${proxied.url}/metering/whoami`, {
      headers: xff('[2001:db8:1:2:aaaa::1]:4431'),
    });
    expect(whoami.text).toBe('{"client":"2001:db8:1:2::/64"}');
  });
});

describe('metering on a dual-stack listener (::1 and IPv4-mapped peers), RFC 7239 Forwarded', () => {
  let app: MeteringTestApp;
  const v4 = (path: string) => `http://127.0.0.1:${app.port}${path}`;
  const v6 = (path: string) => `http://[::1]:${app.port}${path}`;

  beforeAll(async () => {
    app = await startMeteringTestApp(
      { ...SMALL_BUDGETS, trusted_proxies: ['127.0.0.1/32'], forwarded_header: 'forwarded' },
      '::',
    );
  });

  afterAll(async () => {
    await app?.close();
  });

  it('trusts an IPv4-mapped peer by its IPv4 range and reads quoted, bracketed Forwarded', async () => {
    const res = await send(v4('/metering/whoami'), {
      headers: { forwarded: 'for="[2001:db8:cafe::17]:4711";proto=https, for=127.0.0.1' },
    });
    expect(res.text).toBe('{"client":"2001:db8:cafe:0::/64"}');
    const plain = await send(v4('/metering/whoami'), { headers: { 'x-forwarded-for': '1.2.3.4' } });
    expect(plain.text).toBe('{"client":"127.0.0.1"}'); // configured for Forwarded only
  });

  it('keys ::1 by its /64, ignores its headers (not trusted) and meters it apart from 127.0.0.1', async () => {
    const spoof = (i: number) => ({ forwarded: `for=203.0.113.${i}` });
    expect((await send(v6('/metering/whoami'), { headers: spoof(1) })).text).toBe(
      '{"client":"0:0:0:0::/64"}',
    );
    expect(await statuses(6, (i) => v6(`/site/t/${i}`), spoof)).toEqual([
      200, 200, 200, 200, 200, 429,
    ]);
    expect(await statuses(2, v4('/site/t/1'))).toEqual([200, 200]);
  });
});

describe('metering defaults and switches', () => {
  it('leaves headroom for a page and its ~50 assets loading at once, twice', async () => {
    const app = await startMeteringTestApp({});
    try {
      for (let load = 0; load < 2; load++) {
        const page = Array.from({ length: 51 }, (_, i) =>
          send(`${app.url}/site/tape/${i === 0 ? 'index.html' : `assets/${i}.js`}`),
        );
        const codes = (await Promise.all(page)).map((r) => r.status);
        expect(codes).toEqual(Array(51).fill(200));
      }
      const last = await send(`${app.url}/site/tape/index.html`);
      expect(Number(last.headers.get('ratelimit-remaining'))).toBeGreaterThan(51 * 5);
    } finally {
      await app.close();
    }
  });

  it('counts nothing and sends no RateLimit headers when switched off', async () => {
    const app = await startMeteringTestApp({
      enabled: false,
      site: { limit: 1, ttl_secs: 60 },
      object_bytes: 10,
    });
    try {
      const res = await send(`${app.url}/site/t/a`);
      expect(res.headers.get('ratelimit-limit')).toBeNull();
      expect(await statuses(5, `${app.url}/site/t/a`)).toEqual([200, 200, 200, 200, 200]);
      expect((await send(`${app.url}/object/5000`)).status).toBe(200);
      expect((await send(`${app.url}/object/5000`)).status).toBe(200);
    } finally {
      await app.close();
    }
  });

  it('refuses to start with a trusted proxy that is not a CIDR range, naming the key', async () => {
    await expect(startMeteringTestApp({ trusted_proxies: ['10.0.0.0/33'] })).rejects.toThrow(
      /gateway\.metering\.trusted_proxies: each value must be a CIDR range/,
    );
  });
});
