import { nameProblem, validateEntry } from './version-entry';
import { fakeEntry } from './version-test-support.spec-support';

describe('nameProblem', () => {
  it('accepts every S3 key shape that is not hidden: folder markers, empty segments, backslashes', () => {
    for (const name of [
      'dir/',
      'a//b',
      '/lead',
      'a/b/',
      '/',
      '//',
      'win\\path.txt',
      'café/ü.html',
    ]) {
      expect(nameProblem(name)).toBeUndefined();
      expect(() => validateEntry(fakeEntry(name))).not.toThrow();
    }
  });

  it('refuses empty, oversized, hidden, NUL and non-UTF-8 names', () => {
    expect(nameProblem('')).toBe('empty name');
    expect(nameProblem('x'.repeat(1025))).toMatch(/1025 bytes/);
    expect(nameProblem('é'.repeat(513))).toMatch(/1026 bytes/);
    expect(nameProblem('.env')).toMatch(/hidden/);
    expect(nameProblem('dir//.git/config')).toMatch(/hidden/);
    expect(nameProblem('/.well-known/x')).toMatch(/hidden/);
    // `.well-known/<visible name>` is the one hidden form a version may hold (the certifier and
    // each reader decide by the operator's allow list); its own hidden segments are not.
    expect(nameProblem('.well-known/security.txt')).toBeUndefined();
    expect(nameProblem('.well-known/a/b.json')).toBeUndefined();
    expect(nameProblem('.well-known/.x')).toMatch(/hidden/);
    expect(nameProblem('.well-known/')).toMatch(/hidden/);
    expect(nameProblem('.well-known')).toMatch(/hidden/);
    expect(nameProblem('docs/.well-known/x')).toMatch(/hidden/);
    expect(nameProblem('a\0b')).toMatch(/NUL/);
    expect(nameProblem('a\uD800b')).toMatch(/UTF-8/);
  });
});
