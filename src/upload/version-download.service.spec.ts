import { keptVersionOf } from './version-download.service';

const root = (n: number) => Buffer.alloc(32, n);
const kept = (version: number, r = root(version)) => ({
  version,
  root: r,
  bytes: 1,
  publishedAt: 1,
});

describe('keptVersionOf (GET /versions/{tape}/{root})', () => {
  it('finds any kept root, the newest number when two kept versions share a root', () => {
    const tape = { history: [kept(2), kept(5), kept(7, root(2)), kept(9)] };
    expect(keptVersionOf(tape, root(5))).toBe(5);
    expect(keptVersionOf(tape, root(9))).toBe(9);
    expect(keptVersionOf(tape, root(2))).toBe(7);
  });

  it('answers undefined for a root no kept version has (evicted, never published)', () => {
    expect(keptVersionOf({ history: [kept(3)] }, root(1))).toBeUndefined();
    expect(keptVersionOf({ history: [] }, root(1))).toBeUndefined();
  });
});
