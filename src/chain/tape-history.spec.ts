import { PublicKey } from '@solana/web3.js';
import { NO_VERSION, TapeRecord } from './account-layouts';
import {
  aliasVersion,
  aliasesOf,
  applyPublish,
  currentVersion,
  isAliasName,
  keptSet,
  keptVersion,
} from './tape-history';

const key = new PublicKey(Buffer.alloc(32, 1));
const empty: TapeRecord = {
  authority: key,
  delegate: null,
  capacity: 1 << 20,
  activeEpoch: 0,
  expiryEpoch: 10,
  createdAt: 0,
  payer: key,
  ...NO_VERSION,
};
const root = (n: number) => Buffer.alloc(32, n);

/** Publishes versions 1..n live (each root filled with its number). */
function published(n: number, base: TapeRecord = empty): TapeRecord {
  let t = base;
  for (let i = 0; i < n; i++) {
    const v = t.latestVersion + 1;
    t = applyPublish(t, { root: root(v), bytes: v, keptBytes: 0, publishedAt: v });
  }
  return t;
}

describe('tape history helpers', () => {
  it('finds the current, a kept and an aliased version', () => {
    expect(currentVersion(empty)).toBeUndefined();
    let t = published(3);
    t = applyPublish(t, { root: root(9), bytes: 9, keptBytes: 0, publishedAt: 9, alias: 'pr-1' });
    expect(t).toMatchObject({ version: 3, latestVersion: 4, sequence: 4 });
    expect(currentVersion(t)?.root).toEqual(root(3));
    expect(keptVersion(t, 1)?.bytes).toBe(1);
    expect(keptVersion(t, 7)).toBeUndefined();
    expect(aliasVersion(t, 'pr-1')).toMatchObject({ version: 4, root: root(9) });
    expect(aliasVersion(t, 'pr-2')).toBeUndefined();
    expect(aliasesOf(t, 4)).toEqual(['pr-1']);
  });

  it('keeps the current version, every aliased one and the keep newest; evicts the rest', () => {
    let t = published(2, { ...empty, keep: 2 });
    t = applyPublish(t, { root: root(3), bytes: 3, keptBytes: 0, publishedAt: 3, alias: 'old' });
    t = published(3, t); // 4, 5, 6 live: 4 evicts 2 (keep 2), 6 evicts 4
    expect(t.history.map((v) => v.version)).toEqual([3, 5, 6]);
    expect([...keptSet(t)].sort()).toEqual([3, 5, 6]);
    // Re-pointing an alias moves it (no second entry).
    t = applyPublish(t, { root: root(7), bytes: 7, keptBytes: 0, publishedAt: 7, alias: 'old' });
    expect(t.aliases).toEqual([{ name: 'old', version: 7 }]);
    expect(t.history.map((v) => v.version)).toEqual([6, 7]);
  });

  it.each([
    ['a', true],
    ['pr-42', true],
    ['staging', true],
    ['x'.repeat(24), true],
    ['x'.repeat(25), false],
    ['', false],
    ['-a', false],
    ['a-', false],
    ['a--b', false],
    ['Abc', false],
    ['a_b', false],
    ['v1', false],
    ['v123', false],
    ['v', true],
    ['v1a', true],
  ])('alias name %j valid: %s', (name, ok) => {
    expect(isAliasName(name)).toBe(ok);
  });
});
