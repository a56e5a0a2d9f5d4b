import { CliError } from '../cli-error';
import { ScannedSite, SiteFile } from './site-scanner';
import { publishedFiles } from './well-known-files';

const file = (name: string): SiteFile => ({
  name,
  path: `/site/${name}`,
  size: 1,
  contentType: 'text/plain',
  stamp: { size: 1, mtimeNs: 0n, ino: 0n },
});

function site(wellKnown: ScannedSite['wellKnown']): ScannedSite {
  return { root: '/site', files: [file('index.html'), file('a.txt')], hidden: [], wellKnown };
}

describe('publishedFiles', () => {
  it('publishes no .well-known/ file unless the gateway allows its exact name', () => {
    const scanned = site([file('.well-known/security.txt'), file('.well-known/other.json')]);
    expect(publishedFiles(scanned, []).map((f) => f.name)).toEqual(['index.html', 'a.txt']);
    expect(publishedFiles(scanned, ['.well-known/nothing-here']).map((f) => f.name)).toEqual([
      'index.html',
      'a.txt',
    ]);
    expect(publishedFiles(scanned, ['.well-known/security.txt']).map((f) => f.name)).toEqual([
      '.well-known/security.txt',
      'a.txt',
      'index.html',
    ]);
  });

  it('fails on an allowed name that is a symlink, ignores a disallowed one', () => {
    const scanned = site([
      { name: '.well-known/x', problem: 'symlink not allowed: .well-known/x' },
    ]);
    expect(publishedFiles(scanned, ['.well-known/y'])).toHaveLength(2);
    expect(() => publishedFiles(scanned, ['.well-known/x'])).toThrow(
      new CliError('symlink not allowed: .well-known/x; nothing was uploaded'),
    );
  });
});
