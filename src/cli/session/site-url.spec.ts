import { parseSiteDomain, siteUrl, siteUrls } from './site-url';

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

describe('siteUrls', () => {
  const label = 'abcdefghijklmnopqrstuvwxyz234567abcdefghijklmnopqrst';
  const tape = '9xQeWvG816bUx9EPjHmaT23yvVM2ZWbrrpZb9PusVFin';

  it("gives the gateway's path URL with its scheme, host and port", () => {
    expect(siteUrls(label, tape, 'https://gw.example.net:8443', undefined)).toEqual({
      url: `https://gw.example.net:8443/site/${tape}/`,
      hostUrl: null,
      pathUrl: `https://gw.example.net:8443/site/${tape}/`,
    });
    expect(siteUrls(label, tape, 'http://gw.example.net/base/', undefined).pathUrl).toBe(
      `http://gw.example.net/base/site/${tape}/`,
    );
  });

  it('gives a loopback gateway a localhost host URL on its own port', () => {
    expect(siteUrls(label, tape, 'http://127.0.0.1:39123', undefined)).toEqual({
      url: `http://${label}.localhost:39123/`,
      hostUrl: `http://${label}.localhost:39123/`,
      pathUrl: `http://127.0.0.1:39123/site/${tape}/`,
    });
    expect(siteUrls(label, tape, 'http://localhost', undefined).hostUrl).toBe(
      `http://${label}.localhost/`,
    );
    expect(siteUrls(label, tape, 'http://[::1]:8080', undefined).hostUrl).toBe(
      `http://${label}.localhost:8080/`,
    );
  });

  it('uses a configured site domain for the host URL', () => {
    const urls = siteUrls(label, tape, 'http://127.0.0.1:39123', 'sites.example.com');
    expect(urls.url).toBe(`https://${label}.sites.example.com/`);
    expect(urls.pathUrl).toBe(`http://127.0.0.1:39123/site/${tape}/`);
  });
});
