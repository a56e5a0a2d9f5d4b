import { isHiddenName } from './hidden-names';

describe('hidden names', () => {
  it('are names with a segment that starts with "."', () => {
    for (const name of [
      '.env',
      '.well-known/acme-challenge/x',
      'a/.git/config',
      '.',
      '..',
      '/.x',
    ]) {
      expect(isHiddenName(name)).toBe(true);
    }
    for (const name of ['a.b', 'a./b', 'x/y.z/w', 'well-known/x', 'a..b', '%2eenv', 'index.html']) {
      expect(isHiddenName(name)).toBe(false);
    }
  });
});
