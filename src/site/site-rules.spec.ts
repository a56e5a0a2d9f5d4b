import { useSiteTestApp } from './site-test-app.spec-support';

/**
 * `_redirects` and `_headers` of a published version, through the real site edge, service and
 * responder (docs/site.md, "Rules"): on a path route and a hostname route alike, with the
 * fence, and a version whose rules fail the reader's checks never served.
 */
const REDIRECTS = [
  '/redirect-one /one.html',
  '/302-redirect-two /two.html 302',
  '/posts/:year/:slug /articles/:year/:slug 308',
  '/splat/* /redirected-splat/:splat 301',
  '/search /find?q=1 303',
  '/one.html /two.html 302',
  '/forced /two.html 307!',
  '/gone/* /410.html 410',
  '/legal/* /451.html 451',
  '/missing-gone/* /nothing.html 410',
  '/app/* /index.html 200',
  '/not-found/* /404.html 404',
].join('\n');
const HEADERS = [
  '/*',
  "  Content-Security-Policy: script-src 'sha256-AbCd0123456789+/=' https://cdn.example; font-src https://fonts.example",
  '  X-Frame-Options: DENY',
  '  X-Content-Type-Options: nosniff',
  '/assets/*',
  '  Cache-Control: public, max-age=31536000, immutable',
  '  Link: </assets/font.woff2>; rel=preload; as=font',
].join('\n');

describe('site rules', () => {
  const site = useSiteTestApp(
    {
      'index.html': '<h1>my index</h1>',
      'one.html': '<h1>one</h1>',
      'two.html': '<h1>two</h1>',
      '404.html': '<h1>my 404</h1>',
      '410.html': '<h1>my 410</h1>',
      '451.html': '<h1>my 451</h1>',
      'assets/app.js': 'console.log(1)',
      _redirects: REDIRECTS,
      _headers: HEADERS,
    },
    { versioned: {}, timeout: 30_000 },
  );

  describe.each([
    [
      'path route',
      (p: string) => site.app.inject({ url: `/site/${site.tape}${p}` }),
      () => `/site/${site.tape}`,
    ],
    [
      'hostname route',
      (p: string) => site.app.inject({ url: p, headers: { host: `${site.label}.localhost:8080` } }),
      () => '',
    ],
  ])('%s', (_name, get, mount) => {
    it('redirects with the rule status, placeholders and splats, inside the site', async () => {
      const cases: Array<[string, number, string]> = [
        ['/redirect-one', 301, '/one.html'],
        ['/302-redirect-two', 302, '/two.html'],
        ['/posts/2022/hello', 308, '/articles/2022/hello'],
        ['/splat/a/b.html', 301, '/redirected-splat/a/b.html'],
        ['/search?x=2', 303, '/find?q=1'],
        ['/redirect-one?utm=a', 301, '/one.html?utm=a'],
        ['/forced', 307, '/two.html'],
      ];
      for (const [path, status, location] of cases) {
        const res = await get(path);
        expect([path, res.statusCode, res.headers.location]).toEqual([
          path,
          status,
          `${mount()}${location}`,
        ]);
        expect(res.headers['x-content-type-options']).toBe('nosniff');
      }
    });

    it('lets an existing file shadow a rule unless the rule is forced', async () => {
      const res = await get('/one.html');
      expect(res.statusCode).toBe(200);
      expect(res.body).toBe('<h1>one</h1>');
    });

    it('rewrites with 200 and serves custom 404, 410 and 451 pages', async () => {
      const app = await get('/app/deep/route');
      expect([app.statusCode, app.body]).toEqual([200, '<h1>my index</h1>']);
      const nf = await get('/not-found/x');
      expect([nf.statusCode, nf.body]).toEqual([404, '<h1>my 404</h1>']);
      const gone = await get('/gone/x');
      expect([gone.statusCode, gone.body]).toEqual([410, '<h1>my 410</h1>']);
      const legal = await get('/legal/x');
      expect([legal.statusCode, legal.body]).toEqual([451, '<h1>my 451</h1>']);
      const builtIn = await get('/missing-gone/x');
      expect(builtIn.statusCode).toBe(410);
      expect(builtIn.body).toContain('410 Gone');
    });

    it('answers If-None-Match on a rewrite with 304', async () => {
      const first = await get('/app/x');
      const again = await site.app.inject({
        url: `${mount()}/app/y`,
        headers: {
          'if-none-match': first.headers.etag as string,
          ...(mount() === '' ? { host: `${site.label}.localhost:8080` } : {}),
        },
      });
      expect(again.statusCode).toBe(304);
    });

    it('never serves the rules files themselves', async () => {
      expect((await get('/_redirects')).statusCode).toBe(404);
      expect((await get('/_headers')).statusCode).toBe(404);
    });

    it('merges _headers into the built-in policy and keeps nosniff and the sandbox', async () => {
      const res = await get('/assets/app.js');
      expect(res.statusCode).toBe(200);
      const csp = res.headers['content-security-policy'] as string;
      expect(csp).toContain("script-src 'self' 'sha256-AbCd0123456789+/=' https://cdn.example;");
      expect(csp).toContain("font-src 'self' data: https://fonts.example;");
      expect(csp).toContain("default-src 'self'");
      if (mount() !== '') expect(csp).toMatch(/, sandbox allow-scripts/);
      else expect(csp).not.toContain('sandbox');
      expect(res.headers['x-content-type-options']).toBe('nosniff');
      expect(res.headers['x-frame-options']).toBe('DENY');
      expect(res.headers['cache-control']).toBe('public, max-age=31536000, immutable');
      expect(res.headers.link).toBe('</assets/font.woff2>; rel=preload; as=font');
      expect(res.headers['set-cookie']).toBeUndefined();
      const page = await get('/one.html');
      expect(page.headers['cache-control']).toBe('public, max-age=60, must-revalidate');
      expect(page.headers.link).toBeUndefined();
      expect(page.headers['x-frame-options']).toBe('DENY');
    });
  });

  it('never serves a version whose rules fail the reader checks (not certified here)', async () => {
    const forged = Buffer.from(
      JSON.stringify({
        redirects: [['/go', 'https://evil.example/', 302, false]],
        headers: [['/*', [['set-cookie', 'a=b']], []]],
      }),
    );
    const bad = await site.app.addSite({ 'index.html': 'x' }, undefined, { rules: forged });
    for (const url of [`/site/${bad.tape}/`, `/site/${bad.tape}/go`]) {
      const res = await site.app.inject({ url });
      expect(res.statusCode).toBe(500);
      expect(res.headers['set-cookie']).toBeUndefined();
      expect(res.headers.location).toBeUndefined();
      expect(res.body).toContain('rules are invalid');
    }
    const byHost = await site.app.inject({
      url: '/go',
      headers: { host: `${bad.label}.localhost:8080` },
    });
    expect(byHost.statusCode).toBe(500);
  });
});
