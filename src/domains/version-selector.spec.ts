import { parseHostSelector, parsePathSelector, selectorKey } from './version-selector';

describe('version selectors', () => {
  it('reads version numbers and alias names after @ in a path', () => {
    expect(parsePathSelector('3')).toEqual({ kind: 'pinned', version: 3 });
    expect(parsePathSelector('9007199254740991')).toEqual({
      kind: 'pinned',
      version: 9007199254740991,
    });
    expect(parsePathSelector('pr-12')).toEqual({ kind: 'alias', name: 'pr-12' });
    expect(parsePathSelector('staging')).toEqual({ kind: 'alias', name: 'staging' });
  });

  it('refuses garbage, zero, leading zeros, huge numbers and names breaking the alias rule', () => {
    for (const text of [
      '',
      '0',
      '03',
      '9007199254740992',
      '99999999999999999999999',
      'v3', // the pinned host spelling is never an alias
      'PR-1',
      '-pr',
      'pr-',
      'pr--1',
      'a'.repeat(25),
      'pr_1',
      '%70r',
      '3@4',
      'é',
    ]) {
      expect([text, parsePathSelector(text).kind]).toEqual([text, 'bad']);
    }
  });

  it('reads v<n> and alias names before --<label> in a host', () => {
    expect(parseHostSelector('v3')).toEqual({ kind: 'pinned', version: 3 });
    expect(parseHostSelector('pr-12')).toEqual({ kind: 'alias', name: 'pr-12' });
    // Digits alone are an alias on a host (a version is v<n> there).
    expect(parseHostSelector('12')).toEqual({ kind: 'alias', name: '12' });
    for (const text of ['v0', 'v03', 'v9007199254740992', 'a'.repeat(25)]) {
      expect(parseHostSelector(text).kind).toBe('bad');
    }
  });

  it('keys pinned versions and aliases apart', () => {
    expect(selectorKey({ kind: 'pinned', version: 3 })).toBe('v3');
    expect(selectorKey({ kind: 'alias', name: 'pr-3' })).toBe('pr-3');
  });
});
