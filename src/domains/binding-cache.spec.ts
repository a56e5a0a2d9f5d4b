import { Binding, BindingCache, BindingCacheLimits, FetchedBinding } from './binding-cache';
import { ManualClock } from './clock';

function newTestCache(limits: Partial<BindingCacheLimits> = {}) {
  const clock = new ManualClock(1_000_000);
  const sut = new BindingCache(clock, {
    maxEntries: 100,
    negativeTtlSecs: 30,
    maxInFlight: 10,
    ...limits,
  });
  const answers = new Map<string, FetchedBinding>();
  const calls: string[] = [];
  const fetch = async (name: string): Promise<FetchedBinding> => {
    calls.push(name);
    return answers.get(name) ?? { kind: 'unbound', reason: 'nxdomain' };
  };
  const get = (name: string): Promise<Binding> => sut.get(name, fetch);
  return { sut, clock, answers, calls, get };
}

function bound(tape: string, ttlSecs: number): FetchedBinding {
  return { kind: 'bound', tape, ttlSecs };
}

describe('BindingCache', () => {
  it('keeps a binding for its TTL when that is inside [60 s, 3600 s]', async () => {
    const { clock, answers, calls, get } = newTestCache();
    answers.set('a.example', bound('TapeA', 300));
    expect(await get('a.example')).toEqual({ kind: 'bound', tape: 'TapeA' });
    clock.advanceSecs(299.999);
    await get('a.example');
    expect(calls).toHaveLength(1);
    clock.advanceSecs(0.001);
    await get('a.example');
    expect(calls).toHaveLength(2);
  });

  it('raises a short TTL to one minute', async () => {
    const { clock, answers, calls, get } = newTestCache();
    answers.set('a.example', bound('TapeA', 5));
    await get('a.example');
    clock.advanceSecs(59);
    await get('a.example');
    expect(calls).toHaveLength(1);
    clock.advanceSecs(1);
    await get('a.example');
    expect(calls).toHaveLength(2);
  });

  it('caps a long TTL at one hour', async () => {
    const { clock, answers, calls, get } = newTestCache();
    answers.set('a.example', bound('TapeA', 86400));
    await get('a.example');
    clock.advanceSecs(3599);
    await get('a.example');
    expect(calls).toHaveLength(1);
    clock.advanceSecs(1);
    await get('a.example');
    expect(calls).toHaveLength(2);
  });

  it('detaches a removed record once the cached lifetime is over', async () => {
    const { clock, answers, get } = newTestCache();
    answers.set('a.example', bound('TapeA', 120));
    await get('a.example');
    answers.delete('a.example');
    clock.advanceSecs(119);
    expect(await get('a.example')).toEqual({ kind: 'bound', tape: 'TapeA' });
    clock.advanceSecs(1);
    expect(await get('a.example')).toEqual({ kind: 'unbound', reason: 'nxdomain' });
  });

  it('caches misses for the negative TTL', async () => {
    const { clock, answers, calls, get } = newTestCache({ negativeTtlSecs: 7 });
    expect(await get('gone.example')).toEqual({ kind: 'unbound', reason: 'nxdomain' });
    clock.advanceSecs(6.9);
    answers.set('gone.example', bound('TapeA', 300));
    expect(await get('gone.example')).toEqual({ kind: 'unbound', reason: 'nxdomain' });
    expect(calls).toHaveLength(1);
    clock.advanceSecs(0.1);
    expect(await get('gone.example')).toEqual({ kind: 'bound', tape: 'TapeA' });
    expect(calls).toHaveLength(2);
  });

  it('caches a lookup that threw as a miss', async () => {
    const { sut, calls } = newTestCache();
    const failing = async (name: string): Promise<FetchedBinding> => {
      calls.push(name);
      throw new Error('boom');
    };
    expect(await sut.get('x.example', failing)).toEqual({ kind: 'unbound', reason: 'error' });
    expect(await sut.get('x.example', failing)).toEqual({ kind: 'unbound', reason: 'error' });
    expect(calls).toHaveLength(1);
  });

  it('shares one query among 100 concurrent lookups of one name', async () => {
    const { sut } = newTestCache();
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    let queries = 0;
    const slow = async (): Promise<FetchedBinding> => {
      queries++;
      await gate;
      return bound('TapeA', 300);
    };
    const lookups = Array.from({ length: 100 }, () => sut.get('a.example', slow));
    expect(sut.stats().inFlight).toBe(1);
    release();
    const results = await Promise.all(lookups);
    expect(queries).toBe(1);
    expect(results.every((r) => r.kind === 'bound' && r.tape === 'TapeA')).toBe(true);
    expect(sut.stats().inFlight).toBe(0);
  });

  it('bounds the entries, evicting the least recently used', async () => {
    const { sut, answers, calls, get } = newTestCache({ maxEntries: 3 });
    for (const name of ['a', 'b', 'c', 'd']) answers.set(name, bound(`Tape${name}`, 300));
    await get('a');
    await get('b');
    await get('c');
    await get('a'); // a is now the most recently used; b the least
    await get('d');
    expect(sut.stats().bindings).toBe(3);
    calls.length = 0;
    await get('a');
    await get('c');
    await get('d');
    expect(calls).toEqual([]);
    await get('b');
    expect(calls).toEqual(['b']);
  });

  it('keeps bindings when random hosts flood the miss side', async () => {
    const { sut, answers, calls, get } = newTestCache({ maxEntries: 50 });
    answers.set('real.example', bound('TapeA', 300));
    await get('real.example');
    for (let i = 0; i < 10_000; i++) await get(`random-${i}.example`);
    expect(sut.stats()).toMatchObject({ bindings: 1, misses: 50, inFlight: 0 });
    calls.length = 0;
    expect(await get('real.example')).toEqual({ kind: 'bound', tape: 'TapeA' });
    expect(calls).toEqual([]);
  });

  it('answers lookups past the in-flight limit at once as an uncached miss', async () => {
    const { sut } = newTestCache({ maxInFlight: 2 });
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const started: string[] = [];
    const slow = async (name: string): Promise<FetchedBinding> => {
      started.push(name);
      await gate;
      return bound(`Tape-${name}`, 300);
    };
    const first = sut.get('a', slow);
    const second = sut.get('b', slow);
    expect(await sut.get('c', slow)).toEqual({ kind: 'unbound', reason: 'overloaded' });
    expect(started).toEqual(['a', 'b']);
    // A name already in flight still joins its query rather than being refused.
    const joined = sut.get('a', slow);
    release();
    await Promise.all([first, second, joined]);
    expect(await joined).toEqual({ kind: 'bound', tape: 'Tape-a' });
    expect(sut.stats().misses).toBe(0);
    expect(await sut.get('c', slow)).toEqual({ kind: 'bound', tape: 'Tape-c' });
    expect(started).toEqual(['a', 'b', 'c']);
  });

  it('counts cache hits, DNS lookups and failed lookups (for tape_dns_binding_lookups_total)', async () => {
    const { sut, answers, get } = newTestCache();
    answers.set('a.example', bound('TapeA', 300));
    answers.set('bad.example', { kind: 'unbound', reason: 'servfail' });
    await get('a.example');
    await get('a.example');
    await get('a.example');
    await get('none.example');
    await get('bad.example');
    await sut.get('boom.example', () => Promise.reject(new Error('bug')));
    expect(sut.stats()).toMatchObject({ hits: 2, lookups: 4, failures: 2 });
  });
});
