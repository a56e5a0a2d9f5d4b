import { TokenBuckets } from './token-bucket';

function newBuckets(options: { burst: number; perMinute: number; maxKeys?: number }) {
  const clock = { ms: 0 };
  const sut = new TokenBuckets({ maxKeys: 1000, ...options }, () => clock.ms);
  return { sut, clock };
}

describe('TokenBuckets', () => {
  it('grants the burst at once, then refuses with the time until the next token', () => {
    const { sut } = newBuckets({ burst: 3, perMinute: 6 });
    expect([sut.take('a'), sut.take('a'), sut.take('a')]).toEqual([0, 0, 0]);
    expect(sut.take('a')).toBe(10_000);
  });

  it('refills at the configured rate, never above the burst', () => {
    const { sut, clock } = newBuckets({ burst: 2, perMinute: 6 });
    sut.take('a');
    sut.take('a');
    clock.ms += 9_999;
    expect(sut.take('a')).toBeGreaterThan(0);
    clock.ms += 1;
    expect(sut.take('a')).toBe(0);
    clock.ms += 3_600_000;
    expect([sut.take('a'), sut.take('a'), sut.take('a')]).toEqual([0, 0, 10_000]);
  });

  it('keeps one bucket per key: another key is unaffected', () => {
    const { sut } = newBuckets({ burst: 1, perMinute: 1 });
    expect(sut.take('a')).toBe(0);
    expect(sut.take('a')).toBeGreaterThan(0);
    expect(sut.take('b')).toBe(0);
  });

  it('never refills with a rate of zero', () => {
    const { sut, clock } = newBuckets({ burst: 1, perMinute: 0 });
    sut.take('a');
    clock.ms += 3_600_000;
    expect(sut.take('a')).toBe(Infinity);
  });

  it('remembers at most maxKeys keys, forgetting refilled ones first', () => {
    const { sut, clock } = newBuckets({ burst: 1, perMinute: 60, maxKeys: 10 });
    for (let i = 0; i < 10; i++) sut.take(`old${i}`);
    clock.ms += 60_000; // every old bucket has refilled: forgetting it changes nothing
    sut.take('limited');
    for (let i = 0; i < 100; i++) sut.take(`new${i}`);
    expect(sut.size).toBeLessThanOrEqual(10);
  });
});
