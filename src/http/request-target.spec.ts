import { originForm, originFormTarget, TargetRequest } from './request-target';

describe('originFormTarget (RFC 9112 §3.2)', () => {
  it('passes origin-form unchanged, //double slashes included', () => {
    expect(originFormTarget('/a?b=1', 'h')).toEqual({ ok: true, url: '/a?b=1', host: 'h' });
    expect(originFormTarget('//healthz', 'h')).toEqual({ ok: true, url: '//healthz', host: 'h' });
  });

  it('takes the path and query of an absolute-form target whose authority is the Host', () => {
    const host = 'abc.localhost:8080';
    expect(originFormTarget('http://abc.localhost:8080/object/x?y=1', host)).toEqual({
      ok: true,
      url: '/object/x?y=1',
      host,
    });
    expect(originFormTarget('HTTPS://ABC.localhost:8080', host)).toMatchObject({ url: '/' });
    expect(originFormTarget('http://abc.localhost:8080?q', host)).toMatchObject({ url: '/?q' });
  });

  it('takes the authority as the Host when there is none (HTTP/1.0)', () => {
    expect(originFormTarget('http://gw.example/healthz', undefined)).toEqual({
      ok: true,
      url: '/healthz',
      host: 'gw.example',
    });
  });

  it('refuses an authority other than the Host, and every other target form', () => {
    for (const [url, host] of [
      ['http://x/healthz', 'abc.localhost:8080'],
      ['http://abc.localhost/healthz', 'abc.localhost:8080'],
      ['*', 'h'],
      ['example.com:443', 'h'],
      ['ftp://h/x', 'h'],
      ['http:///healthz', 'h'],
      ['http://user@h/x', 'h'],
      ['http://h#frag', 'h'],
      ['http:/h/x', 'h'],
      ['', 'h'],
    ] as const) {
      expect([url, originFormTarget(url, host).ok]).toEqual([url, false]);
    }
  });
});

describe('originForm (the request made origin-form in place)', () => {
  const request = (url: string | undefined, host?: string): TargetRequest => ({
    url,
    headers: host === undefined ? {} : { host },
  });

  it('returns an origin-form target as it is, the request untouched', () => {
    const req = request('/a?b', 'h');
    expect([originForm(req), req]).toEqual(['/a?b', request('/a?b', 'h')]);
    expect(originForm(request(undefined, 'h'))).toBe('/');
  });

  it('sets the URL, and the Host from the authority when there was none', () => {
    const req = request('http://gw.example:8080/healthz?x');
    expect(originForm(req)).toBe('/healthz?x');
    expect(req).toEqual(request('/healthz?x', 'gw.example:8080'));
    const withHost = request('HTTP://Abc.localhost/x', 'abc.localhost');
    expect(originForm(withHost)).toBe('/x');
    expect(withHost).toEqual(request('/x', 'abc.localhost'));
  });

  it('says why it refuses a target, the request untouched', () => {
    const req = request('http://x/healthz', 'abc.localhost');
    expect(originForm(req)).toEqual({
      refused: 'the authority of an absolute request target must equal the Host header',
    });
    expect(req).toEqual(request('http://x/healthz', 'abc.localhost'));
  });
});
