import { TtlCache } from './ttl-cache';

function newCache(maxEntries = 3) {
  let now = 0;
  const cache = new TtlCache<string>(maxEntries, () => now);
  return { cache, advance: (ms: number) => (now += ms) };
}

describe('TtlCache', () => {
  it('keeps an entry for its ttl, then forgets it', () => {
    const { cache, advance } = newCache();
    cache.set('a', 'A', 1000);
    advance(999);
    expect(cache.get('a')).toBe('A');
    advance(1);
    expect(cache.get('a')).toBeUndefined();
    expect(cache.size).toBe(0);
  });

  it('does not keep values given no lifetime', () => {
    const { cache } = newCache();
    cache.set('a', 'A', 0);
    cache.set('b', 'B', -5);
    expect(cache.get('a')).toBeUndefined();
    expect(cache.get('b')).toBeUndefined();
  });

  it('drops the entry stored longest ago when full', () => {
    const { cache } = newCache(2);
    cache.set('a', 'A', 1000);
    cache.set('b', 'B', 1000);
    cache.set('c', 'C', 1000);
    expect([cache.get('a'), cache.get('b'), cache.get('c')]).toEqual([undefined, 'B', 'C']);
  });

  it('shares one load between concurrent misses and lets the loader decide what is kept', async () => {
    const { cache } = newCache();
    let loads = 0;
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const load = async () => {
      loads++;
      await gate;
      cache.set('k', 'V', 1000);
      return 'V';
    };
    const first = cache.getOrLoad('k', load);
    const second = cache.getOrLoad('k', load);
    release();
    expect(await Promise.all([first, second])).toEqual(['V', 'V']);
    expect(loads).toBe(1);
    expect(cache.getOrLoad('k', load)).toBe('V');
    expect(loads).toBe(1);
  });

  it('does not remember a failed load', async () => {
    const { cache } = newCache();
    let calls = 0;
    const failing = () => {
      calls++;
      return Promise.reject(new Error('rpc down'));
    };
    await expect(cache.getOrLoad('k', failing)).rejects.toThrow('rpc down');
    await expect(cache.getOrLoad('k', failing)).rejects.toThrow('rpc down');
    expect(calls).toBe(2);
  });

  it('refuses a bound that is not a positive integer', () => {
    expect(() => new TtlCache(0)).toThrow(RangeError);
    expect(() => new TtlCache(1.5)).toThrow(RangeError);
  });
});
