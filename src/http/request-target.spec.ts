import { originFormTarget } from './request-target';

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
