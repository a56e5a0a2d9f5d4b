import { ByteLru } from './byte-lru';

const bytes = (n: number) => Buffer.alloc(n);

describe('ByteLru', () => {
  it('evicts the least recently used entries once over budget', () => {
    const lru = new ByteLru(100);
    lru.set('a', bytes(40));
    lru.set('b', bytes(40));
    expect(lru.get('a')?.length).toBe(40); // a is now the most recent
    lru.set('c', bytes(40)); // 120 > 100: b goes
    expect(lru.has('b')).toBe(false);
    expect(lru.has('a')).toBe(true);
    expect(lru.has('c')).toBe(true);
    expect(lru.bytes).toBe(80);
    expect(lru.size).toBe(2);
  });

  it('evicts as many as needed for one big entry', () => {
    const lru = new ByteLru(100);
    for (const key of ['a', 'b', 'c', 'd']) lru.set(key, bytes(25));
    lru.set('big', bytes(90));
    expect([...['a', 'b', 'c', 'd', 'big']].filter((k) => lru.has(k))).toEqual(['big']);
    expect(lru.bytes).toBe(90);
  });

  it('never stores a value bigger than the budget, and drops the old value of that key', () => {
    const lru = new ByteLru(10);
    lru.set('k', bytes(5));
    expect(lru.set('k', bytes(11))).toBe(false);
    expect(lru.has('k')).toBe(false);
    expect(lru.bytes).toBe(0);
  });

  it('replaces a key without counting it twice', () => {
    const lru = new ByteLru(100);
    lru.set('k', bytes(60));
    lru.set('k', bytes(70));
    expect(lru.bytes).toBe(70);
    expect(lru.size).toBe(1);
  });

  it('deletes and clears', () => {
    const lru = new ByteLru(100);
    lru.set('a', bytes(10));
    lru.set('b', bytes(10));
    expect(lru.delete('a')).toBe(true);
    expect(lru.delete('a')).toBe(false);
    expect(lru.bytes).toBe(10);
    lru.clear();
    expect(lru.size).toBe(0);
    expect(lru.bytes).toBe(0);
    expect(lru.get('b')).toBeUndefined();
  });

  it('holds any value that knows its byteLength', () => {
    const lru = new ByteLru<{ byteLength: number; name: string }>(10);
    lru.set('x', { byteLength: 6, name: 'x' });
    lru.set('y', { byteLength: 6, name: 'y' });
    expect(lru.get('x')).toBeUndefined();
    expect(lru.get('y')?.name).toBe('y');
  });

  it('costs the same per operation whatever its size (O(1) operations)', () => {
    // Relative, not wall-clock: both sizes run the same 200,000 operations back to back, so a
    // loaded machine slows both. A per-operation cost growing with the entry count (a Map
    // re-inserted on each hit, walking its deleted slots) makes the large one many times slower.
    const run = (capacity: number) => {
      const lru = new ByteLru(capacity);
      const started = process.hrtime.bigint();
      for (let i = 0; i < 200_000; i++) {
        lru.set(`k${i}`, bytes(1));
        lru.get(`k${i - Math.floor(capacity / 2)}`);
      }
      expect(lru.size).toBe(capacity);
      return Number(process.hrtime.bigint() - started);
    };
    run(100); // warm-up: the JIT compiles the paths once
    // Interleaved and the best of four each, so a burst of load on a shared machine hits both.
    const small: number[] = [];
    const large: number[] = [];
    for (let round = 0; round < 4; round++) {
      small.push(run(100));
      large.push(run(50_000));
    }
    expect(Math.min(...large) / Math.min(...small)).toBeLessThan(5);
  });

  it('behaves like a naive reference LRU under random operations', () => {
    const lru = new ByteLru(100);
    let model: Array<[string, number]> = []; // oldest first
    const modelBytes = () => model.reduce((sum, [, n]) => sum + n, 0);
    for (let step = 0; step < 20_000; step++) {
      const key = `k${Math.floor(Math.random() * 30)}`;
      const op = Math.random();
      if (op < 0.5) {
        const n = Math.floor(Math.random() * 40);
        lru.set(key, bytes(n));
        model = model.filter(([k]) => k !== key);
        model.push([key, n]);
        while (modelBytes() > 100) model.shift();
      } else if (op < 0.85) {
        const hit = model.find(([k]) => k === key);
        expect(lru.get(key)?.length).toBe(hit?.[1]);
        if (hit) model = [...model.filter(([k]) => k !== key), hit];
      } else {
        expect(lru.delete(key)).toBe(model.some(([k]) => k === key));
        model = model.filter(([k]) => k !== key);
      }
      expect(lru.bytes).toBe(modelBytes());
      expect(lru.size).toBe(model.length);
    }
  });

  it('rejects a bad budget', () => {
    expect(() => new ByteLru(-1)).toThrow(RangeError);
    expect(() => new ByteLru(1.5)).toThrow(RangeError);
  });
});
