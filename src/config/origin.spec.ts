import { parseOrigin, parseOriginList } from './origin';

function accepted(value: unknown): string {
  const parsed = parseOrigin(value);
  if (!parsed.ok) throw new Error(`refused ${String(value)}: ${parsed.reason}`);
  return parsed.origin;
}

describe('parseOrigin', () => {
  it('accepts http, https, ws and wss origins in normal form', () => {
    expect(accepted('https://app.example.com')).toBe('https://app.example.com');
    expect(accepted('HTTPS://App.Example.COM')).toBe('https://app.example.com');
    expect(accepted('http://localhost:5173')).toBe('http://localhost:5173');
    expect(accepted('wss://live.example.com')).toBe('wss://live.example.com');
    expect(accepted('ws://127.0.0.1:9000')).toBe('ws://127.0.0.1:9000');
    expect(accepted('https://[::1]:8443')).toBe('https://[::1]:8443');
    expect(accepted('https://[2001:db8::1]')).toBe('https://[2001:db8::1]');
  });

  it('drops default ports and one trailing slash', () => {
    expect(accepted('https://a.example:443')).toBe('https://a.example');
    expect(accepted('http://a.example:80/')).toBe('http://a.example');
    expect(accepted('wss://a.example:443')).toBe('wss://a.example');
    expect(accepted('https://a.example:80')).toBe('https://a.example:80');
  });

  it.each([
    ['CSP directive injection', "https://a.example; script-src 'unsafe-inline'"],
    ['a second source', 'https://a.example https://evil.example'],
    ['a quote', "https://a.example'"],
    ['a comma', 'https://a.example,https://b.example'],
    ['CR LF header injection', 'https://a.example\r\nSet-Cookie: x=1'],
    ['a path', 'https://a.example/path'],
    ['a query', 'https://a.example?x'],
    ['a host wildcard', 'https://*.example.com'],
    ['another scheme', 'javascript://a.example'],
    ['a data URL', 'data:text/html,x'],
    ['no scheme', 'a.example'],
    ['a keyword', "'self'"],
    ['userinfo', 'https://user@a.example'],
    ['non-ASCII host', 'https://exämple.com'],
    ['an empty host', 'https://'],
    ['a bad port', 'https://a.example:99999'],
    ['a zero port', 'https://a.example:0'],
    ['a leading-zero port', 'https://a.example:0443'],
    ['a numeric last label', 'https://a.123'],
    ['a bad IPv4 address', 'https://256.1.1.1'],
    ['a bad IPv6 address', 'https://[1:::2]'],
    ['an empty label', 'https://a..example'],
    ['a hyphen at a label edge', 'https://-a.example'],
    ['the empty string', ''],
    ['a number', 42],
    ['null', null],
    ['an object', { origin: 'https://a.example' }],
    ['an overlong value', `https://${'a'.repeat(300)}.example`],
  ])('refuses %s', (_what, value) => {
    expect(parseOrigin(value).ok).toBe(false);
  });
});

describe('parseOriginList', () => {
  it('keeps valid entries once each, in order, and reports the rest', () => {
    const list = parseOriginList(
      ['https://b.example', 'https://a.example', 'HTTPS://B.EXAMPLE:443', 'nope', 7],
      false,
    );
    expect(list.origins).toEqual(['https://b.example', 'https://a.example']);
    expect(list.any).toBe(false);
    expect(list.dropped).toHaveLength(2);
    expect(list.dropped[0]).toMatch(/^\[3\] "nope": not an origin/);
    expect(list.dropped[1]).toMatch(/^\[4\] "7": not a string/);
  });

  it('takes * only where allowed', () => {
    expect(parseOriginList(['*'], true).any).toBe(true);
    const refused = parseOriginList(['*', 'https://a.example'], false);
    expect(refused.any).toBe(false);
    expect(refused.origins).toEqual(['https://a.example']);
    expect(refused.dropped[0]).toMatch(/"\*" is not allowed here/);
  });

  it('keeps control characters out of its report', () => {
    const list = parseOriginList(['https://a.example\r\nX: y'], false);
    expect(list.dropped[0]).not.toMatch(/[\r\n]/);
  });
});
