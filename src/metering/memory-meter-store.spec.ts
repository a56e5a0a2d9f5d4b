import { MemoryMeterStore } from './memory-meter-store';

function newStore(maxKeys?: number) {
  let now = 1_000_000;
  const sut = new MemoryMeterStore({ now: () => now, maxKeys });
  return { sut, advance: (ms: number) => (now += ms) };
}

describe('MemoryMeterStore', () => {
  it('counts hits in a fixed window that starts at the first hit', async () => {
    const { sut, advance } = newStore();
    expect(sut.hit('b', 'k', 1, 10_000)).toEqual({ total: 1, msToReset: 10_000 });
    advance(4_000);
    expect(sut.hit('b', 'k', 1, 10_000)).toEqual({ total: 2, msToReset: 6_000 });
    expect(sut.hit('b', 'other', 1, 10_000)).toEqual({ total: 1, msToReset: 10_000 });
    expect(sut.hit('other-bucket', 'k', 1, 10_000)).toEqual({ total: 1, msToReset: 10_000 });
    advance(6_000);
    expect(sut.hit('b', 'k', 1, 10_000)).toEqual({ total: 1, msToReset: 10_000 });
    await sut.close();
  });

  it('adds amounts, gives back negative ones, and never opens a window with a refund', async () => {
    const { sut, advance } = newStore();
    expect(sut.hit('b', 'bytes', 700, 1_000).total).toBe(700);
    expect(sut.hit('b', 'bytes', -200, 1_000).total).toBe(500);
    advance(1_000);
    expect(sut.hit('b', 'bytes', -500, 1_000)).toEqual({ total: 0, msToReset: 1_000 });
    expect(sut.size).toBe(1); // the ended window, not a new one
    expect(sut.hit('b', 'bytes', 10, 1_000).total).toBe(10);
    await sut.close();
  });

  it('answers the throttler interface: blocked past the limit until the window ends', async () => {
    const { sut, advance } = newStore();
    const first = await sut.increment('k', 2_000, 2, 0, 'site');
    expect(first).toEqual({
      totalHits: 1,
      timeToExpire: 2,
      isBlocked: false,
      timeToBlockExpire: 0,
    });
    await sut.increment('k', 2_000, 2, 0, 'site');
    advance(500);
    const third = await sut.increment('k', 2_000, 2, 0, 'site');
    expect(third).toEqual({ totalHits: 3, timeToExpire: 2, isBlocked: true, timeToBlockExpire: 2 });
    advance(1_500);
    expect((await sut.increment('k', 2_000, 2, 0, 'site')).isBlocked).toBe(false);
    await sut.close();
  });

  it('sweeps ended windows and stays bounded under a flood of distinct clients', async () => {
    const { sut, advance } = newStore(100);
    for (let i = 0; i < 50; i++) sut.hit('b', `old${i}`, 1, 1_000);
    advance(1_000);
    sut.sweep();
    expect(sut.size).toBe(0);
    for (let i = 0; i < 1_000; i++) sut.hit('b', `c${i}`, 1, 60_000);
    expect(sut.size).toBeLessThanOrEqual(100);
    expect(sut.hit('b', 'c999', 1, 60_000).total).toBe(2); // the newest are kept
    await sut.close();
  });
});
