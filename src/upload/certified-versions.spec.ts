import { CertifiedFacts } from '../versions/certified-facts';
import { CertifiedVersions, FACTS_WEIGHT_KEPT } from './certified-versions';

function facts(root: number, entries: number): CertifiedFacts {
  return {
    root: Buffer.alloc(32, root),
    nodes: new Map(),
    entries: new Set(Array.from({ length: entries }, (_, i) => `e${i}`)),
    segments: new Map(),
    tracks: new Map(),
  };
}

describe('CertifiedVersions', () => {
  it('trusts facts only for the root at the version number they were certified as', () => {
    const sut = new CertifiedVersions();
    const f = facts(1, 10);
    sut.remember('tape', 3, f);
    expect(sut.trusted('tape', 3, Buffer.alloc(32, 1))).toBe(f);
    expect(sut.trusted('tape', 4, Buffer.alloc(32, 1))).toBeUndefined();
    expect(sut.trusted('tape', 3, Buffer.alloc(32, 2))).toBeUndefined();
    expect(sut.trusted('other', 3, Buffer.alloc(32, 1))).toBeUndefined();
    sut.remember('tape', 4, facts(2, 10));
    expect(sut.trusted('tape', 3, Buffer.alloc(32, 1))).toBeUndefined();
  });

  it('keeps at most FACTS_WEIGHT_KEPT entries and nodes, oldest tape first; a larger version not at all', () => {
    const sut = new CertifiedVersions();
    const half = Math.floor(FACTS_WEIGHT_KEPT / 2);
    sut.remember('a', 1, facts(1, half));
    sut.remember('b', 1, facts(2, half));
    sut.remember('c', 1, facts(3, 10));
    expect(sut.trusted('a', 1, Buffer.alloc(32, 1))).toBeUndefined();
    expect(sut.trusted('b', 1, Buffer.alloc(32, 2))).toBeDefined();
    expect(sut.trusted('c', 1, Buffer.alloc(32, 3))).toBeDefined();
    sut.remember('huge', 1, facts(4, FACTS_WEIGHT_KEPT + 1));
    expect(sut.trusted('huge', 1, Buffer.alloc(32, 4))).toBeUndefined();
    expect(sut.trusted('b', 1, Buffer.alloc(32, 2))).toBeDefined();
  });
});
