import { FailOpenMeterStore } from './fail-open-meter-store';
import { MemoryMeterStore } from './memory-meter-store';
import { HitResult, MeterStore, MeterStoreStats } from './meter-store';

/** A store that fails while `down` is true and counts calls. */
class FlakyStore extends MeterStore {
  down = false;
  calls = 0;
  closed = false;
  private total = 0;

  async hit(
    _bucket: string,
    _client: string,
    amount: number,
    windowMs: number,
  ): Promise<HitResult> {
    this.calls++;
    if (this.down) throw new Error('connect ECONNREFUSED 127.0.0.1:6379');
    this.total += amount;
    return { total: this.total, msToReset: windowMs };
  }

  stats(): MeterStoreStats {
    return { backend: 'redis', failures: 0, failOpenHits: 0, healthy: true };
  }

  override async close(): Promise<void> {
    this.closed = true;
  }
}

function newFailOpenStore() {
  let now = 0;
  const inner = new FlakyStore();
  const log = { warn: jest.fn<void, [string]>(), log: jest.fn<void, [string]>() };
  const sut = new FailOpenMeterStore(inner, log, {
    cooldownMs: 500,
    logEveryMs: 10_000,
    now: () => now,
  });
  return { sut, inner, log, advance: (ms: number) => (now += ms) };
}

describe('FailOpenMeterStore', () => {
  it('passes hits through while the store answers', async () => {
    const { sut, inner } = newFailOpenStore();
    expect(await sut.hit('b', 'k', 1, 1_000)).toEqual({ total: 1, msToReset: 1_000 });
    expect(await sut.hit('b', 'k', 1, 1_000)).toEqual({ total: 2, msToReset: 1_000 });
    expect(inner.calls).toBe(2);
    expect(sut.stats()).toEqual({ backend: 'redis', failures: 0, failOpenHits: 0, healthy: true });
  });

  it('answers allowed, marked degraded, when the store fails, and counts it', async () => {
    const { sut, inner } = newFailOpenStore();
    inner.down = true;
    expect(await sut.hit('b', 'k', 1, 1_000)).toEqual({
      total: 1,
      msToReset: 1_000,
      degraded: true,
    });
    expect(await sut.hit('b', 'bytes', 5_000, 1_000)).toEqual({
      total: 5_000,
      msToReset: 1_000,
      degraded: true,
    });
    expect(await sut.increment('k', 1_000, 1, 0, 'site')).toMatchObject({ isBlocked: false });
    expect(sut.stats()).toMatchObject({ failures: 1, failOpenHits: 3, healthy: false });
  });

  it('leaves a failing store alone for the cooldown, then tries again and recovers', async () => {
    const { sut, inner, log, advance } = newFailOpenStore();
    inner.down = true;
    await sut.hit('b', 'k', 1, 1_000);
    for (let i = 0; i < 100; i++) await sut.hit('b', 'k', 1, 1_000);
    expect(inner.calls).toBe(1);
    advance(500);
    await sut.hit('b', 'k', 1, 1_000);
    expect(inner.calls).toBe(2);
    expect(sut.stats().failures).toBe(2);
    inner.down = false;
    advance(500);
    expect(await sut.hit('b', 'k', 1, 1_000)).toEqual({ total: 1, msToReset: 1_000 });
    expect(sut.stats()).toMatchObject({ failures: 2, failOpenHits: 102, healthy: true });
    expect(log.log).toHaveBeenCalledTimes(1);
    expect(log.log.mock.calls[0][0]).toMatch(/counting resumed/);
  });

  it('rate-limits its warnings and reports how many it held back', async () => {
    const { sut, inner, log, advance } = newFailOpenStore();
    inner.down = true;
    for (let i = 0; i < 10; i++) {
      await sut.hit('b', 'k', 1, 1_000);
      advance(600); // past the cooldown: every hit reaches the failing store
    }
    expect(sut.stats().failures).toBe(10);
    expect(log.warn).toHaveBeenCalledTimes(1);
    expect(log.warn.mock.calls[0][0]).toMatch(/serving unmetered: connect ECONNREFUSED/);
    advance(10_000);
    await sut.hit('b', 'k', 1, 1_000);
    expect(log.warn).toHaveBeenCalledTimes(2);
    expect(log.warn.mock.calls[1][0]).toMatch(/9 more failures since the last report/);
  });

  it('answers at once, without a promise, over a store that does', () => {
    const sut = new FailOpenMeterStore(new MemoryMeterStore(), { warn: jest.fn(), log: jest.fn() });
    expect(sut.hit('b', 'k', 1, 1_000)).toEqual({ total: 1, msToReset: 1_000 });
    void sut.close();
  });

  it('closes the store it wraps', async () => {
    const { sut, inner } = newFailOpenStore();
    await sut.onModuleDestroy();
    expect(inner.closed).toBe(true);
  });
});
