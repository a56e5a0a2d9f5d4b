import { validateConfig } from '../config/config-loader';
import { FailOpenMeterStore } from './fail-open-meter-store';
import { MemoryMeterStore } from './memory-meter-store';
import { HitResult, MeterStore, MeterStoreStats } from './meter-store';
import { BudgetName } from './metering-budgets';
import { MeteringService } from './metering.service';
import { setRateLimitHeaders } from './rate-limit-headers';

class DeadStore extends MeterStore {
  async hit(): Promise<HitResult> {
    throw new Error('down');
  }
  stats(): MeterStoreStats {
    return { backend: 'redis', failures: 0, failOpenHits: 0, healthy: false };
  }
}

function newService(
  metering: Record<string, unknown> = {},
  store: MeterStore = new MemoryMeterStore(),
) {
  const config = validateConfig({ gateway: { metering } }).gateway.metering;
  return { sut: new MeteringService(config, store), store };
}

describe('MeteringService', () => {
  it('counts an IP and its client key as one client', async () => {
    const { sut } = newService({ site: { limit: 2, ttl_secs: 60 } });
    expect((await sut.consume('::ffff:203.0.113.9', 'site')).remaining).toBe(1);
    expect((await sut.consume('203.0.113.9', 'site')).remaining).toBe(0);
    expect(await sut.consume('2001:db8::1', 'site')).toMatchObject({ allowed: true, remaining: 1 });
    expect(await sut.consume('2001:db8:0:0::/64', 'site')).toMatchObject({ remaining: 0 });
    expect(await sut.consume('2001:db8::2', 'site')).toMatchObject({
      allowed: false,
      retryAfterSecs: 60,
      resetSecs: 60,
    });
    expect(sut.stats().refused.site).toBe(1);
  });

  it('counts each budget against its own limit when budgets alternate', async () => {
    const { sut } = newService({
      site: { limit: 3, ttl_secs: 60 },
      object: { limit: 10, ttl_secs: 60 },
    });
    const remaining = async (budget: BudgetName) =>
      (await sut.consume('203.0.113.9', budget)).remaining;
    expect(await remaining('site')).toBe(2);
    expect(await remaining('object')).toBe(9);
    expect(await remaining('site')).toBe(1);
    expect(await remaining('site')).toBe(0);
    expect(await remaining('object')).toBe(8);
    await expect(sut.consume('203.0.113.9', 'bogus' as BudgetName)).rejects.toThrow(RangeError);
    expect(await sut.consume('203.0.113.9', 'object')).toMatchObject({ allowed: true, limit: 10 });
    expect(await sut.consume('203.0.113.9', 'site')).toMatchObject({ allowed: false, limit: 3 });
  });

  it('rejects a client that is neither an IP nor a key, and unknown budgets', async () => {
    const { sut } = newService();
    for (const bad of ['', 'nope', '1.2.3.4/64', '1.2.3.4:80', '[::1]', 'x'.repeat(10_000)]) {
      await expect(sut.consume(bad, 'site')).rejects.toThrow(TypeError);
    }
    await expect(sut.consume(42 as unknown as string, 'site')).rejects.toThrow(
      'client must be a string, not number',
    );
    // A socket that closed before its address was read: the `unknown` client, not an error.
    expect(await sut.consume(undefined, 'site')).toMatchObject({ allowed: true, remaining: 1199 });
    await expect(sut.consume('1.2.3.4', 'bogus' as BudgetName)).rejects.toThrow(
      /unknown metering budget "bogus"; one of site, object, upload, s3_write/,
    );
    await expect(sut.consume('1.2.3.4', 'toString' as BudgetName)).rejects.toThrow(RangeError);
  });

  it('refuses byte counts that are not non-negative integers', async () => {
    const { sut } = newService();
    for (const bad of [-1, 1.5, NaN, Infinity, 2 ** 53]) {
      await expect(sut.chargeBytes('1.2.3.4', bad)).rejects.toThrow(RangeError);
    }
  });

  it('lets zero-byte responses through even over the byte budget', async () => {
    const { sut } = newService({ object_bytes: 10 });
    expect((await sut.chargeBytes('1.2.3.4', 10)).allowed).toBe(true);
    expect((await sut.chargeBytes('1.2.3.4', 1)).allowed).toBe(false);
    expect(await sut.chargeBytes('1.2.3.4', 0)).toMatchObject({ allowed: true, remaining: 0 });
  });

  it('fails open on a dead store, reporting degraded decisions and the failures', async () => {
    const log = { warn: jest.fn(), log: jest.fn() };
    const { sut } = newService(
      { site: { limit: 1, ttl_secs: 60 }, object_bytes: 1 },
      new FailOpenMeterStore(new DeadStore(), log),
    );
    for (let i = 0; i < 3; i++) {
      expect(await sut.consume('1.2.3.4', 'site')).toMatchObject({ allowed: true, degraded: true });
      expect((await sut.chargeBytes('1.2.3.4', 100)).allowed).toBe(true);
    }
    expect(sut.stats()).toMatchObject({ backend: 'redis', healthy: false, failOpenHits: 6 });
    expect(sut.stats().failures).toBeGreaterThanOrEqual(1);
    expect(log.warn).toHaveBeenCalledTimes(1);
  });

  it('answers everything allowed, uncounted, when switched off', async () => {
    const { sut, store } = newService({ enabled: false, site: { limit: 1, ttl_secs: 60 } });
    for (let i = 0; i < 3; i++) {
      expect(await sut.consume('1.2.3.4', 'site')).toMatchObject({ allowed: true, degraded: true });
    }
    const sink = { header: jest.fn() };
    const decision = sut.meterRequest(
      { socket: { remoteAddress: '1.2.3.4' }, headers: {} },
      'site',
    );
    setRateLimitHeaders(sink, decision instanceof Promise ? await decision : decision);
    expect(sink.header).not.toHaveBeenCalled();
    expect((store as MemoryMeterStore).size).toBe(0);
  });
});

describe('gateway.metering budgets', () => {
  it('keep the other field of a budget at its default when one is set', () => {
    const site = validateConfig({ gateway: { metering: { site: { limit: 5000 } } } }).gateway
      .metering;
    expect(site.site).toMatchObject({ limit: 5000, ttl_secs: 60 });
    const upload = validateConfig({ gateway: { metering: { upload: { ttl_secs: 10 } } } }).gateway
      .metering;
    expect(upload.upload).toMatchObject({ limit: 6000, ttl_secs: 10 });
    expect(upload.site).toMatchObject({ limit: 1200, ttl_secs: 60 });
  });

  it('name the wrong key', () => {
    expect(() => validateConfig({ gateway: { metering: { site: { limit: 0 } } } })).toThrow(
      /gateway\.metering\.site\.limit: must not be less than 1/,
    );
    expect(() => validateConfig({ gateway: { metering: { redis_url: 'http://x' } } })).toThrow(
      /gateway\.metering\.redis_url: must be a redis:\/\/ or rediss:\/\/ URL/,
    );
    expect(() =>
      validateConfig({ gateway: { metering: { forwarded_header: 'x-real-ip' } } }),
    ).toThrow(/gateway\.metering\.forwarded_header/);
    expect(() => validateConfig({ gateway: { metering: { redis_sync_ms: 5000 } } })).toThrow(
      /gateway\.metering\.redis_sync_ms: must not be greater than 1000/,
    );
  });
});
