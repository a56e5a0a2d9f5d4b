import { tableAfterPublish, uniqueBytes } from './kept-set';

const root = (n: number) => Buffer.alloc(32, n);
const entry = (version: number) => ({ version, root: root(version), bytes: 10, publishedAt: 1 });

function tape(over: {
  version: number;
  latestVersion: number;
  keep: number;
  history: number[];
  aliases?: [string, number][];
}) {
  return {
    version: over.version,
    latestVersion: over.latestVersion,
    keep: over.keep,
    history: over.history.map(entry),
    aliases: (over.aliases ?? []).map(([name, version]) => ({ name, version })),
  };
}

describe('tableAfterPublish', () => {
  it('appends latest+1, makes it current and evicts the oldest past keep', () => {
    const after = tableAfterPublish(
      tape({ version: 3, latestVersion: 3, keep: 3, history: [1, 2, 3] }),
      root(4),
      10,
    );
    expect(after.version).toBe(4);
    expect(after.kept.map((v) => v.version)).toEqual([2, 3, 4]);
  });

  it('keeps aliased versions outside the newest keep; a live Publish replaces the current one', () => {
    const after = tableAfterPublish(
      tape({ version: 1, latestVersion: 5, keep: 2, history: [1, 2, 4, 5], aliases: [['old', 2]] }),
      root(6),
      10,
    );
    expect(after.kept.map((v) => v.version)).toEqual([2, 5, 6]);
  });

  it('under an alias: the current version stays, the alias moves, its old version may go', () => {
    const after = tableAfterPublish(
      tape({ version: 3, latestVersion: 4, keep: 1, history: [3, 4], aliases: [['pr-1', 4]] }),
      root(5),
      10,
      'pr-1',
    );
    expect(after.version).toBe(5);
    expect(after.kept.map((v) => v.version)).toEqual([3, 5]);
  });
});

describe('uniqueBytes', () => {
  it('counts a track shared by versions once, plus versions counted whole', () => {
    const a = new Map([
      ['aa', 100],
      ['bb', 20],
    ]);
    const b = new Map([
      ['bb', 20],
      ['cc', 5],
    ]);
    expect(uniqueBytes([a, b])).toBe(125);
    expect(uniqueBytes([a, b], 1000)).toBe(1125);
    expect(uniqueBytes([])).toBe(0);
  });
});
