import {
  REFUSED_TARGET,
  REFUSED_TARGET_ROUTE,
  RewritableRequest,
  rewriteTarget,
} from './target-rewrite';

function run(url: string, host?: string) {
  const req: RewritableRequest = { url, headers: host === undefined ? {} : { host } };
  return { out: rewriteTarget(req), req };
}

describe('rewriteTarget (RFC 9112 §3.2)', () => {
  it('keeps origin-form targets as they are', () => {
    expect(run('/healthz?x', 'localhost:8080').out).toBe('/healthz?x');
    expect(run('//healthz', 'localhost:8080').out).toBe('//healthz');
  });

  it('makes an absolute-form target on its own host origin-form', () => {
    const { out, req } = run('http://localhost:8080/healthz?x', 'localhost:8080');
    expect(out).toBe('/healthz?x');
    expect(req[REFUSED_TARGET]).toBeUndefined();
  });

  it('takes the Host from the authority when there is no Host header', () => {
    const { out, req } = run('http://localhost:8080/healthz');
    expect(out).toBe('/healthz');
    expect(req.headers.host).toBe('localhost:8080');
  });

  it('refuses a mismatched authority, asterisk-form and authority-form', () => {
    for (const [url, host] of [
      ['http://x/healthz', 'localhost:8080'],
      ['http://localhost:8080/healthz', 'other.localhost:8080'],
      ['*', 'localhost:8080'],
      ['localhost:8080', 'localhost:8080'],
    ] as const) {
      const { out, req } = run(url, host);
      expect([url, out]).toEqual([url, REFUSED_TARGET_ROUTE]);
      expect(req[REFUSED_TARGET]).toMatch(/target/);
    }
  });
});
