import Redis from 'ioredis';
import { freePort } from './support/processes/free-port';
import { startMeteringTestApp } from './support/apps/metering-app';
import { send, xff } from './support/clients/metering-http';
import { MeteringProcess, startMeteringProcess } from './support/apps/metering-process';
import { RedisServer, startRedis, waitUntilCounting } from './support/processes/metering-redis';

// The e2e project's testTimeout in jest.config.js is not applied (Jest reads it globally only).
jest.setTimeout(120_000);

interface Stats {
  backend: string;
  failures: number;
  failOpenHits: number;
  healthy: boolean;
}

async function statsOf(gateway: MeteringProcess): Promise<Stats> {
  return JSON.parse((await send(`${gateway.url}/metering/stats`)).text) as Stats;
}

/** Until `gateway` sends RateLimit headers again, i.e. its store counts. */
async function untilCounting(gateway: MeteringProcess): Promise<void> {
  await waitUntilCounting(
    async () =>
      (await send(`${gateway.url}/site/t/probe`, { headers: xff('198.51.100.99') })).headers.get(
        'ratelimit-remaining',
      ),
    () => `gateway ${gateway.pid}\n${gateway.logs()}`,
  );
}

/** A redis-server and two gateway processes metering through it. */
interface TwoOnRedis {
  redis: RedisServer;
  a: MeteringProcess;
  b: MeteringProcess;
}

/**
 * Starts a redis-server on a free port and two gateway processes sharing it, under their own key
 * prefix (`<name>:<pid>:`), trusting 127.0.0.1 (each test names its client with
 * X-Forwarded-For), a 300 ms Redis timeout and 10 site requests a minute, `extra` over those.
 */
async function startTwoOnRedis(name: string, extra: Record<string, unknown>): Promise<TwoOnRedis> {
  const redis = await startRedis();
  const config = {
    redis_url: redis.url,
    redis_key_prefix: `${name}:${process.pid}:`,
    // Above the 100 ms default: a loaded CI machine must not fail open in the exact-count test.
    redis_timeout_ms: 300,
    trusted_proxies: ['127.0.0.1/32'],
    site: { limit: 10, ttl_secs: 60 },
    ...extra,
  };
  const started = await Promise.allSettled([
    startMeteringProcess(config),
    startMeteringProcess(config),
  ]);
  const [a, b] = started.map((s) => (s.status === 'fulfilled' ? s.value : undefined));
  if (!a || !b) {
    await stopTwoOnRedis({ redis, a, b });
    throw (started.find((s) => s.status === 'rejected') as PromiseRejectedResult).reason;
  }
  return { redis, a, b };
}

async function stopTwoOnRedis(two: Partial<TwoOnRedis>): Promise<void> {
  await Promise.all([two.a?.stop(), two.b?.stop()]);
  await two.redis?.stop();
}

/**
 * Two gateway processes (each its own Node process, its own Redis connection) sharing one real
 * redis-server started on a free port. Both trust 127.0.0.1, so each test names its own client
 * with X-Forwarded-For.
 */
describe('metering shared through Redis by two gateway processes, exact mode', () => {
  let redis: RedisServer;
  let a: MeteringProcess;
  let b: MeteringProcess;

  beforeAll(async () => {
    ({ redis, a, b } = await startTwoOnRedis('e2e', {
      redis_sync_ms: 0, // exact: every hit counted in Redis before it is answered
      object: { limit: 10, ttl_secs: 60 },
      upload: { limit: 4, ttl_secs: 60 },
    }));
  });

  afterAll(() => stopTwoOnRedis({ redis, a, b }));

  it('enforces one budget across both processes', async () => {
    expect(a.pid).not.toBe(b.pid);
    const client = xff('198.51.100.10');
    const remaining: string[] = [];
    for (let i = 0; i < 10; i++) {
      const res = await send(`${(i % 2 === 0 ? a : b).url}/site/t/${i}`, { headers: client });
      expect(res.status).toBe(200);
      remaining.push(res.headers.get('ratelimit-remaining') ?? '');
    }
    expect(remaining).toEqual(['9', '8', '7', '6', '5', '4', '3', '2', '1', '0']);
    expect((await send(`${a.url}/site/t/x`, { headers: client })).status).toBe(429);
    const fromB = await send(`${b.url}/site/t/x`, { headers: client });
    expect(fromB.status).toBe(429);
    expect(Number(fromB.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect((await statsOf(a)).backend).toBe('redis');
  });

  it('counts exactly under concurrency: 40 parallel requests on two processes, 10 allowed', async () => {
    const client = xff('198.51.100.11');
    const answers = await Promise.all(
      Array.from({ length: 40 }, (_, i) =>
        send(`${(i % 2 === 0 ? a : b).url}/object/0`, { headers: client }),
      ),
    );
    const codes = answers.map((r) => r.status);
    expect(codes.filter((c) => c === 200)).toHaveLength(10);
    expect(codes.filter((c) => c === 429)).toHaveLength(30);
    const left = answers
      .filter((r) => r.status === 200)
      .map((r) => r.headers.get('ratelimit-remaining'));
    expect(new Set(left).size).toBe(10); // each allowed request saw its own place in the count
  });

  it('does not stall requests on a Redis that hangs (stopped, connection still open)', async () => {
    const client = xff('198.51.100.14');
    process.kill(redis.pid, 'SIGSTOP');
    try {
      const started = Date.now();
      for (let i = 0; i < 10; i++) {
        const t0 = Date.now();
        const res = await send(`${a.url}/site/t/${i}`, { headers: client });
        expect(res.status).toBe(200);
        expect(Date.now() - t0).toBeLessThan(1000); // one command timeout (300 ms) at most
      }
      // After one timeout the store is left alone for a cooldown: most requests do not wait.
      expect(Date.now() - started).toBeLessThan(3000);
      expect((await statsOf(a)).failures).toBeGreaterThanOrEqual(1);
    } finally {
      process.kill(redis.pid, 'SIGCONT');
    }
    await untilCounting(a);
  });

  it('keeps serving while Redis is down, counts the failures, and counts again once it is back', async () => {
    const client = xff('198.51.100.12');
    const upload = (gw: MeteringProcess) =>
      send(`${gw.url}/upload/f`, { method: 'PUT', headers: client });
    expect((await upload(a)).headers.get('ratelimit-remaining')).toBe('3');
    expect((await upload(b)).headers.get('ratelimit-remaining')).toBe('2');

    await redis.stop('SIGKILL');
    for (let i = 0; i < 12; i++) {
      const started = Date.now();
      const res = await upload(i % 2 === 0 ? a : b);
      expect(res.status).toBe(200); // far past the limit of 4: unmetered, not refused
      expect(res.headers.get('ratelimit-limit')).toBeNull();
      expect(Date.now() - started).toBeLessThan(1000);
    }
    for (const gw of [a, b]) {
      const stats = await statsOf(gw);
      expect(stats.healthy).toBe(false);
      expect(stats.failures).toBeGreaterThanOrEqual(1);
      expect(stats.failOpenHits).toBeGreaterThanOrEqual(6);
    }
    expect((await send(`${a.url}/healthz`)).status).toBe(200);

    redis = await startRedis(redis.port); // empty: no persistence
    for (const gw of [a, b]) {
      await untilCounting(gw);
      expect((await statsOf(gw)).healthy).toBe(true);
    }
    const codes: number[] = [];
    for (let i = 0; i < 6; i++) codes.push((await upload(i % 2 === 0 ? a : b)).status);
    expect(codes).toEqual([200, 200, 200, 200, 429, 429]);
    expect(a.logs()).toMatch(/metering store failed, serving unmetered/);
    expect(a.logs()).toMatch(/counting resumed/);
  });
});

describe('metering shared through Redis with local pre-aggregation (the default)', () => {
  let redis: RedisServer;
  let a: MeteringProcess;
  let b: MeteringProcess;

  beforeAll(async () => {
    ({ redis, a, b } = await startTwoOnRedis('e2e-sync', {}));
  });

  afterAll(() => stopTwoOnRedis({ redis, a, b }));

  const site = (gw: MeteringProcess, client: string) =>
    send(`${gw.url}/site/t/x`, { headers: xff(client) }).then((r) => r.status);
  const pause = () => new Promise((r) => setTimeout(r, 300)); // well past the 10 ms sync period

  it('shares one budget: what one gateway counted, the other sees after the sync period', async () => {
    const first: number[] = [];
    for (let i = 0; i < 6; i++) first.push(await site(a, '198.51.100.20'));
    expect(first).toEqual([200, 200, 200, 200, 200, 200]);
    await pause();
    const second: number[] = [];
    for (let i = 0; i < 6; i++) second.push(await site(b, '198.51.100.20'));
    expect(second).toEqual([200, 200, 200, 200, 429, 429]);
    await pause();
    expect(await site(a, '198.51.100.20')).toBe(429);
  });

  it('admits at most one budget per gateway in a parallel burst, then refuses on both', async () => {
    const burst = await Promise.all(
      Array.from({ length: 60 }, (_, i) => site(i % 2 === 0 ? a : b, '198.51.100.21')),
    );
    const allowed = burst.filter((c) => c === 200).length;
    expect(allowed).toBeGreaterThanOrEqual(10);
    expect(allowed).toBeLessThanOrEqual(20); // each gateway always counts its own hits
    await pause();
    expect([await site(a, '198.51.100.21'), await site(b, '198.51.100.21')]).toEqual([429, 429]);
  });

  it('keeps serving when Redis dies and counts again when it is back', async () => {
    expect(await site(a, '198.51.100.22')).toBe(200);
    await redis.stop('SIGKILL');
    const during: number[] = [];
    for (let i = 0; i < 30; i++) during.push(await site(i % 2 === 0 ? a : b, '198.51.100.22'));
    expect(new Set(during)).toEqual(new Set([200]));
    redis = await startRedis(redis.port);
    await untilCounting(a);
    await untilCounting(b);
  });
});

describe('the Redis connection of the metering store', () => {
  it('is opened by the app and closed when the app closes', async () => {
    const redis = await startRedis();
    const admin = new Redis(redis.url, { lazyConnect: true });
    const meteringClients = async () =>
      String(await admin.call('CLIENT', 'LIST'))
        .split('\n')
        .filter((line) => line.includes('name=tape-gateway-metering'));
    try {
      await admin.connect();
      const app = await startMeteringTestApp({ redis_url: redis.url });
      expect((await send(`${app.url}/site/t/a`)).headers.get('ratelimit-remaining')).toBe('1199');
      expect(await meteringClients()).toHaveLength(1);
      await app.close();
      const deadline = Date.now() + 5_000;
      while ((await meteringClients()).length > 0 && Date.now() < deadline) {
        await new Promise((r) => setTimeout(r, 50));
      }
      expect(await meteringClients()).toHaveLength(0);
    } finally {
      admin.disconnect();
      await redis.stop();
    }
  });

  it('lets the gateway start and serve with Redis down, and counts once Redis comes', async () => {
    const port = await freePort();
    const started = Date.now();
    const app = await startMeteringTestApp({ redis_url: `redis://127.0.0.1:${port}` });
    let redis: RedisServer | undefined;
    try {
      expect(Date.now() - started).toBeLessThan(10_000);
      const unmetered = await send(`${app.url}/site/t/a`);
      expect(unmetered.status).toBe(200);
      expect(unmetered.headers.get('ratelimit-limit')).toBeNull();
      redis = await startRedis(port);
      const remaining = await waitUntilCounting(
        async () => (await send(`${app.url}/site/t/a`)).headers.get('ratelimit-remaining'),
        () => 'the metering test app',
      );
      expect(remaining).toBe('1199');
    } finally {
      await app.close();
      await redis?.stop();
    }
  });
});
