import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { send, xff } from './support/clients/metering-http';
import { RedisServer, startRedis, waitUntilCounting } from './support/processes/metering-redis';
import { SiteGateway, startSiteGateway } from './support/processes/site-gateway';
import { siteGet, SiteResponse } from './support/clients/site-http';
import { PublishedSite, publishSite } from './support/labs/site-publish';

// The e2e project's testTimeout in jest.config.js is not applied (Jest reads it globally only).
jest.setTimeout(180_000);

/**
 * Metering on the product itself: two gateway processes built as production builds them (every
 * module, the site hot path, the S3 listener), reading one chain and track store, sharing one
 * real redis-server. The other metering e2e files drive a small app with stand-in routes; this
 * one checks that the real site, object and S3 routes are the ones counted.
 */
describe('metering on two real gateways sharing one redis-server', () => {
  let dataDir: string;
  let redis: RedisServer;
  let writer: SiteGateway;
  let a: SiteGateway;
  let b: SiteGateway;
  let site: PublishedSite;
  let track: string;

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'metering-gw-'));
    redis = await startRedis();
    writer = await startSiteGateway({ dataDir });
    site = await publishSite(writer, {
      'index.html': '<!doctype html><title>metered</title><p>hello</p>\n',
      'app.css': 'body { color: teal }\n',
    });
    const listed = await writer.tape(['object', 'ls', '--json'], site.configDir);
    const objects = JSON.parse(listed.stdout) as { name: string; track: string }[];
    track = objects.find((o) => o.name === 'app.css')!.track;
    const metering = {
      redis_url: redis.url,
      redis_key_prefix: `e2e-gw:${process.pid}:`,
      redis_sync_ms: 0, // exact: each hit counted in Redis before it is answered
      redis_timeout_ms: 300, // a loaded CI machine must not fail open by accident
      trusted_proxies: ['127.0.0.1/32'],
      site: { limit: 10, ttl_secs: 60 },
      object: { limit: 6, ttl_secs: 60 },
      s3_write: { limit: 3, ttl_secs: 60 },
    };
    // Info level: the outage test reads the 'counting resumed' line.
    const reader = { dataDir, rpcUrl: writer.rpcUrl, metering, logLevel: 'info' };
    [a, b] = await Promise.all([startSiteGateway(reader), startSiteGateway(reader)]);
  });

  afterAll(async () => {
    await Promise.all([a?.stop(), b?.stop()]);
    await writer?.stop();
    await redis?.stop();
    site?.remove();
    rmSync(dataDir, { recursive: true, force: true });
  });

  /** The site root by hostname (`<label>.localhost`) on `gw`, as `client` behind the proxy. */
  const byHost = (gw: SiteGateway, client: string, path = '/'): Promise<SiteResponse> =>
    siteGet(gw.url, path, { host: `${site.label}.localhost:${gw.port}`, headers: xff(client) });
  const byPath = (gw: SiteGateway, client: string, path = '/'): Promise<SiteResponse> =>
    siteGet(gw.url, `/site/${site.tape}${path}`, { headers: xff(client) });
  const object = (gw: SiteGateway, client: string): Promise<SiteResponse> =>
    siteGet(gw.url, `/object/${track}`, { headers: xff(client) });
  const healthOf = async (gw: SiteGateway) =>
    JSON.parse((await siteGet(gw.url, '/healthz')).text) as {
      status: string;
      metering: {
        backend: string;
        healthy: boolean;
        failures: number;
        failOpenHits: number;
        refused: Record<string, number>;
      };
    };

  /** Until `gw` counts again (RateLimit headers are back after a Redis outage). */
  const untilCounting = (gw: SiteGateway) =>
    waitUntilCounting(
      async () => (await byPath(gw, '198.51.100.250')).headers['ratelimit-remaining'],
      () => `gateway ${gw.pid}\n${gw.logs()}`,
    );

  it('counts site reads by hostname and by path on both gateways against one budget', async () => {
    expect(a.pid).not.toBe(b.pid);
    const client = '198.51.100.40';
    const remaining: unknown[] = [];
    for (let i = 0; i < 10; i++) {
      // Hostname reads on a (its hot path once the host is known), path reads on b.
      const res = i % 2 === 0 ? await byHost(a, client) : await byPath(b, client);
      expect([res.status, res.text]).toEqual([200, expect.stringContaining('hello')]);
      remaining.push(res.headers['ratelimit-remaining']);
    }
    expect(remaining).toEqual(['9', '8', '7', '6', '5', '4', '3', '2', '1', '0']);

    for (const refused of [await byHost(a, client), await byPath(b, client, '/app.css')]) {
      expect(refused.status).toBe(429);
      expect(JSON.parse(refused.text)).toEqual({
        error: { code: 'too_many_requests', message: expect.stringMatching(/site reads/) },
      });
      const retryAfter = Number(refused.headers['retry-after']);
      expect(retryAfter).toBeGreaterThanOrEqual(1);
      expect(retryAfter).toBeLessThanOrEqual(60);
      expect(refused.headers['ratelimit-limit']).toBe('10');
      expect(refused.headers['ratelimit-remaining']).toBe('0');
      expect(Number(refused.headers['ratelimit-reset'])).toBe(retryAfter);
      expect(refused.headers['cache-control']).toBe('no-store');
      expect(refused.headers['set-cookie']).toBeUndefined();
    }
    // Another client has its own budget; the exhausted one still may read objects.
    expect((await byHost(b, '198.51.100.41')).status).toBe(200);
    expect((await object(a, client)).status).toBe(200);
    expect((await healthOf(a)).metering.refused.site).toBeGreaterThanOrEqual(1);
  });

  it('counts object reads on both gateways against the object budget', async () => {
    const client = '198.51.100.42';
    const codes: number[] = [];
    for (let i = 0; i < 8; i++) codes.push((await object(i % 2 === 0 ? a : b, client)).status);
    expect(codes).toEqual([200, 200, 200, 200, 200, 200, 429, 429]);
    const refused = await object(b, client);
    expect(refused.headers['ratelimit-limit']).toBe('6');
    expect(JSON.parse(refused.text).error.message).toMatch(/object reads/);
  });

  it('answers S3 SlowDown on the real S3 listener once the shared write budget is spent', async () => {
    const put = (gw: SiteGateway, key: string, client = '198.51.100.43') =>
      send(`${gw.s3Url}/${site.label}/${key}`, {
        method: 'PUT',
        headers: xff(client),
        body: 'x',
      });
    // Unsigned writes are counted before they are refused: an auth flood spends the budget too.
    const first = [await put(a, 'a'), await put(b, 'b'), await put(a, 'c')];
    expect(first.map((r) => r.status)).toEqual([403, 403, 403]);
    for (const gw of [a, b]) {
      const slow = await put(gw, 'd');
      expect(slow.status).toBe(503);
      expect(slow.headers.get('content-type')).toMatch(/xml/);
      expect(slow.text).toContain('<Code>SlowDown</Code>');
      expect(Number(slow.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    }
    // Another client's writes still reach authentication.
    expect((await put(a, 'e', '198.51.100.44')).status).toBe(403);
  });

  it('does not meter /healthz, which reports the shared store', async () => {
    const client = xff('198.51.100.45');
    for (let i = 0; i < 30; i++) {
      const res = await send(`${a.url}/healthz`, { headers: client });
      expect(res.status).toBe(200);
      expect(res.headers.get('ratelimit-limit')).toBeNull();
    }
    const health = await healthOf(b);
    expect(health.status).toBe('ok');
    expect(health.metering).toMatchObject({ backend: 'redis', healthy: true });
  });

  it('keeps serving sites when Redis is killed, reports it, and counts again once it is back', async () => {
    const client = '198.51.100.46';
    expect((await byHost(a, client)).headers['ratelimit-remaining']).toBe('9');

    await redis.stop('SIGKILL');
    for (let i = 0; i < 16; i++) {
      const started = Date.now();
      const res = i % 2 === 0 ? await byHost(a, client) : await byPath(b, client);
      expect(res.status).toBe(200); // past the limit of 10: served unmetered, not refused
      expect(res.headers['ratelimit-limit']).toBeUndefined();
      expect(Date.now() - started).toBeLessThan(1000);
    }
    for (const gw of [a, b]) {
      const health = await healthOf(gw);
      expect(health.status).toBe('ok'); // a metering outage does not take the gateway out
      expect(health.metering.healthy).toBe(false);
      expect(health.metering.failures).toBeGreaterThanOrEqual(1);
      expect(health.metering.failOpenHits).toBeGreaterThanOrEqual(8);
    }

    redis = await startRedis(redis.port); // a fresh, empty Redis on the same address
    await untilCounting(a);
    await untilCounting(b);
    const codes: number[] = [];
    for (let i = 0; i < 12; i++) {
      codes.push((i % 2 === 0 ? await byHost(a, client) : await byPath(b, client)).status);
    }
    expect(codes).toEqual([200, 200, 200, 200, 200, 200, 200, 200, 200, 200, 429, 429]);
    expect((await healthOf(a)).metering.healthy).toBe(true);
    expect(a.logs()).toMatch(/metering store failed, serving unmetered/);
    expect(a.logs()).toMatch(/counting resumed/);
  });
});
