import { parseSiteDomain, siteUrl } from './site-url';

describe('site URLs', () => {
  const label = 'abcdefghijklmnopqrstuvwxyz234567abcdefghijklmnopqrst';

  it('uses http for localhost domains and https for the rest', () => {
    expect(siteUrl(label, 'localhost:8080')).toBe(`http://${label}.localhost:8080/`);
    expect(siteUrl(label, 'localhost')).toBe(`http://${label}.localhost/`);
    expect(siteUrl(label, 'dev.localhost:9000')).toBe(`http://${label}.dev.localhost:9000/`);
    expect(siteUrl(label, 'tape.example.com')).toBe(`https://${label}.tape.example.com/`);
    expect(siteUrl(label, 'notlocalhost.com')).toBe(`https://${label}.notlocalhost.com/`);
  });

  it('accepts host names with an optional port, lower-cased', () => {
    expect(parseSiteDomain('Example.COM')).toBe('example.com');
    expect(parseSiteDomain('localhost:8080')).toBe('localhost:8080');
    expect(parseSiteDomain('sites.example.com.')).toBe('sites.example.com');
  });

  it.each([
    '',
    'http://example.com',
    'exa mple.com',
    'example.com/path',
    'a..b',
    '-a.com',
    'localhost:0',
    'localhost:70000',
    'x'.repeat(300),
    'ex_ample.com',
    'évil.com',
  ])('rejects %j', (text) => {
    expect(() => parseSiteDomain(text)).toThrow(/^bad site domain/);
  });
});
