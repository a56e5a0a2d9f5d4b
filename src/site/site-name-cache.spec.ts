import { SiteNameCache } from './site-name-cache';
import { SiteObject } from './site-source';

const TAPE = 'TapeAddress1111111111111111111111111111111';

function object(name: string, hex = 'ab'.repeat(32), size = 10): SiteObject {
  return {
    name,
    kind: 'blob',
    commitment: Buffer.from(hex, 'hex'),
    commitmentHex: hex,
    size,
    contentType: 'text/html',
  };
}

describe('SiteNameCache', () => {
  it('keeps hits and misses alike, fresh for their lifetime, refreshed ahead at 3/4', () => {
    const sut = new SiteNameCache(10);
    sut.set(TAPE, 'index.html', object('index.html'), 1000, 60_000);
    sut.set(TAPE, 'missing.png', null, 1000, 60_000);
    expect(sut.get(TAPE, 'index.html')).toMatchObject({
      fetchedAt: 1000,
      refreshAt: 46_000,
      freshUntil: 61_000,
    });
    expect(sut.get(TAPE, 'missing.png')).toMatchObject({ object: null, freshUntil: 61_000 });
    expect(sut.get(TAPE, 'other.png')).toBeUndefined();
    expect(sut.get('OtherTape111111111111111111111111111111111', 'index.html')).toBeUndefined();
  });

  it('keeps an unchanged object as it was, so what was prepared for it stays valid', () => {
    const sut = new SiteNameCache(10);
    const first = object('a.js');
    sut.set(TAPE, 'a.js', first, 0, 1000);
    sut.set(TAPE, 'a.js', object('a.js'), 2000, 1000);
    expect(sut.get(TAPE, 'a.js')!.object).toBe(first);
    sut.set(TAPE, 'a.js', object('a.js', 'cd'.repeat(32)), 4000, 1000);
    expect(sut.get(TAPE, 'a.js')!.object).not.toBe(first);
  });

  it('drops the least recently used entry past its size', () => {
    const sut = new SiteNameCache(2);
    sut.set(TAPE, 'a', null, 0, 1000);
    sut.set(TAPE, 'b', null, 0, 1000);
    sut.use(TAPE, 'a');
    sut.set(TAPE, 'c', null, 0, 1000);
    expect(sut.get(TAPE, 'a')).toBeDefined();
    expect(sut.get(TAPE, 'b')).toBeUndefined();
    expect(sut.size).toBe(2);
  });

  it('keeps a young entry 5 s more after a failed read, and not an old one', () => {
    const sut = new SiteNameCache(10);
    sut.set(TAPE, 'a', null, 0, 60_000);
    expect(sut.keepStale(TAPE, 'a', 70_000, 600_000)).toBe(true);
    expect(sut.get(TAPE, 'a')).toMatchObject({ freshUntil: 75_000, refreshAt: 75_000 });
    expect(sut.keepStale(TAPE, 'a', 598_000, 600_000)).toBe(true);
    expect(sut.get(TAPE, 'a')!.freshUntil).toBe(600_000);
    expect(sut.keepStale(TAPE, 'a', 600_000, 600_000)).toBe(false);
    expect(sut.keepStale(TAPE, 'never-read', 0, 600_000)).toBe(false);
  });

  it('forgets every name of one tape', () => {
    const sut = new SiteNameCache(10);
    const other = 'OtherTape111111111111111111111111111111111';
    sut.set(TAPE, 'a', null, 0, 1000);
    sut.set(TAPE, 'b/c', null, 0, 1000);
    sut.set(other, 'a', null, 0, 1000);
    sut.forget(TAPE);
    expect(sut.size).toBe(1);
    expect(sut.get(other, 'a')).toBeDefined();
  });
});
