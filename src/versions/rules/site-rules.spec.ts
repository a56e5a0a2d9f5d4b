import { firstRedirect, headersFor } from './rules-match';
import { compileSiteRules, decodeSiteRules, encodeSiteRules, RulesError } from './site-rules';
import { MAX_RULES_FILE_BYTES } from './rules-limits';

function problemsOf(files: { redirects?: string; headers?: string }): string[] {
  try {
    compileSiteRules({
      redirects: files.redirects === undefined ? undefined : Buffer.from(files.redirects),
      headers: files.headers === undefined ? undefined : Buffer.from(files.headers),
    });
    return [];
  } catch (err) {
    if (err instanceof RulesError) return err.problems;
    throw err;
  }
}

function rulesOf(files: { redirects?: string; headers?: string }) {
  return compileSiteRules({
    redirects: files.redirects === undefined ? undefined : Buffer.from(files.redirects),
    headers: files.headers === undefined ? undefined : Buffer.from(files.headers),
  });
}

/**
 * The IPFS web-redirects-file fixtures (specs.ipfs.tech/http-gateways/web-redirects-file, the
 * "examples" site of QmYBhLYD…, and ipfs/gateway-conformance's redirects_file_test.go): our own
 * cases written from their documented expectations.
 */
const IPFS_EXAMPLES = [
  '/redirect-one /one.html',
  '/301-redirect-one /one.html 301',
  '/302-redirect-two /two.html 302',
  '/200-index /index.html 200',
  '/posts/:year/:month/:day/:title /articles/:year/:month/:day/:title 301',
  '/splat/* /redirected-splat/:splat 301',
  '/not-found/* /404.html 404',
  '/gone/* /410.html 410',
  '/unavail/* /451.html 451',
  '/* /index.html 200',
].join('\n');

describe('_redirects', () => {
  const rules = rulesOf({ redirects: IPFS_EXAMPLES });
  const decide = (path: string) => {
    const m = firstRedirect(rules, path);
    return m && { status: m.rule.status, target: m.target };
  };

  it('passes the IPFS examples fixture', () => {
    expect(decide('/redirect-one')).toEqual({ status: 301, target: '/one.html' });
    expect(decide('/301-redirect-one')).toEqual({ status: 301, target: '/one.html' });
    expect(decide('/302-redirect-two')).toEqual({ status: 302, target: '/two.html' });
    expect(decide('/200-index')).toEqual({ status: 200, target: '/index.html' });
    expect(decide('/posts/2022/01/01/hello-world')).toEqual({
      status: 301,
      target: '/articles/2022/01/01/hello-world',
    });
    expect(decide('/splat/one.html')).toEqual({
      status: 301,
      target: '/redirected-splat/one.html',
    });
    expect(decide('/not-found/has-no-redirects-entry')).toEqual({
      status: 404,
      target: '/404.html',
    });
    expect(decide('/gone/has-no-redirects-entry')).toEqual({ status: 410, target: '/410.html' });
    expect(decide('/unavail/has-no-redirects-entry')).toEqual({ status: 451, target: '/451.html' });
    expect(decide('/catch-all')).toEqual({ status: 200, target: '/index.html' });
  });

  it('passes the newlines fixture: \\r\\n and a last line without one', () => {
    const r = rulesOf({ redirects: '/redirect-one /one.html\r\n/two /two.html 302' });
    expect(firstRedirect(r, '/redirect-one')?.target).toBe('/one.html');
    expect(firstRedirect(r, '/two')?.rule.status).toBe(302);
  });

  it('passes the good-codes fixture and refuses the bad-codes one line by line', () => {
    const good = [200, 301, 302, 303, 307, 308, 404, 410, 451]
      .map((s) => `/a${s} /b${s} ${s}`)
      .join('\n');
    expect(firstRedirect(rulesOf({ redirects: good }), '/a301')?.target).toBe('/b301');
    const bad = ['/a /b 300', '/c /d 305', '/e /f 418', '/g /h 500'].join('\n');
    expect(problemsOf({ redirects: bad })).toEqual([
      '_redirects:1: status 300 is not allowed (200, 301, 302, 303, 307, 308, 404, 410, 451)',
      '_redirects:2: status 305 is not allowed (200, 301, 302, 303, 307, 308, 404, 410, 451)',
      '_redirects:3: status 418 is not allowed (200, 301, 302, 303, 307, 308, 404, 410, 451)',
      '_redirects:4: status 500 is not allowed (200, 301, 302, 303, 307, 308, 404, 410, 451)',
    ]);
  });

  it('refuses the invalid and too-large fixtures', () => {
    expect(problemsOf({ redirects: '/a /b /c /d' })[0]).toMatch(/^_redirects:1: .*conditions/);
    expect(problemsOf({ redirects: '/only-one-token' })).toEqual([
      '_redirects:1: a rule is `from to [status]`',
    ]);
    const big = `/a /b\n${'#'.repeat(MAX_RULES_FILE_BYTES)}`;
    expect(problemsOf({ redirects: big })[0]).toMatch(/over the 65536-byte limit/);
  });

  it('keeps comments, blank lines and whitespace out, and counts lines from 1', () => {
    const text = '# comment\n\n   /a   /b\t302  \n/x /y 305';
    expect(problemsOf({ redirects: text })).toEqual([
      '_redirects:4: status 305 is not allowed (200, 301, 302, 303, 307, 308, 404, 410, 451)',
    ]);
  });

  it('refuses any target off the site, a duplicate placeholder and a mid-path splat', () => {
    const text = [
      '/a https://evil.example/ 302',
      '/b //evil.example/x 301',
      '/c /\\evil.example 301',
      '/d javascript:alert(1) 302',
      '/e/:id/:id /f 301',
      '/g/*/h /i 301',
      '/j?x=1 /k 301',
      'k /l',
      '/m /../n 301',
    ].join('\n');
    const problems = problemsOf({ redirects: text });
    expect(problems).toHaveLength(9);
    expect(problems[0]).toMatch(/^_redirects:1: "https:\/\/evil.example\/" is another origin/);
    expect(problems[1]).toMatch(/^_redirects:2: .*leaves the site's origin/);
    expect(problems[2]).toMatch(/^_redirects:3: .*leaves the site's origin/);
    expect(problems[3]).toMatch(/^_redirects:4: .*another origin/);
    expect(problems[4]).toMatch(/^_redirects:5: .*:id appears twice/);
    expect(problems[5]).toMatch(/^_redirects:6: .*only at the end/);
    expect(problems[6]).toMatch(/^_redirects:7: .*query conditions are not supported/);
    expect(problems[7]).toMatch(/^_redirects:8: .*must start with \//);
    expect(problems[8]).toMatch(/^_redirects:9: .*\.\. segment/);
  });

  it('matches first rule first, trailing slashes either way, and encodes substitutions', () => {
    const r = rulesOf({ redirects: '/old/ /new 301\n/old /other 302\n/u/:name /users/:name 301!' });
    expect(firstRedirect(r, '/old')?.target).toBe('/new');
    expect(firstRedirect(r, '/old/')?.target).toBe('/new');
    const m = firstRedirect(r, '/u/zoë');
    expect(m?.target).toBe('/users/zo%C3%AB');
    expect(m?.rule.force).toBe(true);
    expect(firstRedirect(r, '/u')).toBeNull();
  });

  it('substitutes placeholders into a static query', () => {
    const r = rulesOf({ redirects: '/source2/:code/:name /target-file?code=:code&name=:name 301' });
    expect(firstRedirect(r, '/source2/a/b')?.target).toBe('/target-file?code=a&name=b');
  });
});

describe('_headers and the fence', () => {
  it('parses blocks, applies every matching rule in order, and merges CSP additions', () => {
    const text = [
      '/*',
      '  X-Frame-Options: DENY',
      "  Content-Security-Policy: script-src 'sha256-abc=' https://cdn.example",
      '/docs/*',
      '  Cache-Control: public, max-age=600',
      '  Content-Security-Policy: font-src https://fonts.example',
      '  ! X-Frame-Options',
      '/docs/:page',
      '  Link: </a.css>; rel=preload',
    ].join('\n');
    const r = rulesOf({ headers: text });
    const h = headersFor(r, '/docs/intro');
    expect(h.key).toBe('0,1,2');
    expect(h.set).toEqual({
      'cache-control': 'public, max-age=600',
      link: '</a.css>; rel=preload',
    });
    expect(h.csp).toEqual({
      'script-src': ["'sha256-abc='", 'https://cdn.example'],
      'font-src': ['https://fonts.example'],
    });
    expect(headersFor(r, '/').set).toEqual({ 'x-frame-options': 'DENY' });
  });

  it('refuses cookies, nosniff changes, sandbox, replacing directives, redirects and CORS', () => {
    const text = [
      '/*',
      '  Set-Cookie: a=b',
      '  X-Content-Type-Options: none',
      '  ! X-Content-Type-Options',
      '  Content-Security-Policy: sandbox allow-scripts allow-same-origin',
      '  Content-Security-Policy: default-src *',
      "  Content-Security-Policy: script-src 'unsafe-inline'",
      '  Content-Security-Policy: script-src *',
      "  Content-Security-Policy: script-src 'self', default-src *",
      '  Location: https://evil.example/',
      '  Refresh: 0; url=https://evil.example/',
      '  Access-Control-Allow-Origin: *',
      '  Server: mine',
      '  X-Frame-Options: ALLOW-FROM https://x.example',
      '  Referrer-Policy: everything',
      '  Bad Name: x',
    ].join('\n');
    const problems = problemsOf({ headers: text });
    expect(problems).toEqual([
      '_headers:2: a site can never set cookies',
      '_headers:3: X-Content-Type-Options is always nosniff: it cannot be removed or changed',
      '_headers:4: X-Content-Type-Options is always nosniff: it cannot be removed or changed',
      "_headers:5: Content-Security-Policy: the sandbox is the gateway's, a site can neither set nor drop it",
      expect.stringMatching(/^_headers:6: Content-Security-Policy: default-src cannot be changed/),
      expect.stringMatching(
        /^_headers:7: Content-Security-Policy: script-src "'unsafe-inline'" is not allowed/,
      ),
      expect.stringMatching(/^_headers:8: Content-Security-Policy: script-src "\*" is not allowed/),
      '_headers:9: Content-Security-Policy: one policy only (a , would start a second policy)',
      "_headers:10: Location: redirects belong in _redirects (and stay on the site's origin)",
      "_headers:11: Refresh: redirects belong in _redirects (and stay on the site's origin)",
      '_headers:12: Access-Control-Allow-Origin: CORS is set by _site.json (cors_origins)',
      expect.stringMatching(/^_headers:13: Server is not a header a site may set \(allowed: /),
      expect.stringMatching(/^_headers:14: X-Frame-Options: .* is not one of deny, sameorigin/),
      '_headers:15: Referrer-Policy: "everything" is not a referrer policy',
      expect.stringMatching(/^_headers:16: a header line is|^_headers:16: .*is not a header name/),
    ]);
  });

  it('accepts what the fence allows', () => {
    const text = [
      '/assets/*',
      '  Cache-Control: public, max-age=31536000, immutable',
      '  Cross-Origin-Resource-Policy: same-origin',
      '/*',
      '  Cross-Origin-Opener-Policy: same-origin',
      '  Cross-Origin-Embedder-Policy: require-corp',
      '  Permissions-Policy: camera=(), geolocation=()',
      '  Referrer-Policy: strict-origin-when-cross-origin',
      '  X-Content-Type-Options: nosniff',
      '  X-Robots-Tag: noindex',
      "  Content-Security-Policy: script-src 'self' 'wasm-unsafe-eval' 'sha384-AbC+/=' https://*.cdn.example:8443/js/; img-src https: data:",
    ].join('\n');
    expect(problemsOf({ headers: text })).toEqual([]);
  });

  it('refuses a header before a path, host patterns and over-long values', () => {
    const text = [
      '  X-Robots-Tag: noindex',
      'https://x.example/*',
      '  X-Robots-Tag: a',
      '/a',
      `  Link: ${'x'.repeat(2001)}`,
    ].join('\n');
    expect(problemsOf({ headers: text })).toEqual([
      '_headers:1: a header before any path pattern (indent headers below a path)',
      '_headers:2: "https://x.example/*": host-specific rules are not supported (write a path)',
      '_headers:5: Link: value over 2000 bytes',
    ]);
  });
});

describe('compiled rules', () => {
  const rules = rulesOf({
    redirects: IPFS_EXAMPLES,
    headers: "/*\n  Content-Security-Policy: script-src 'sha256-abc='\n",
  });

  it('round-trips its canonical bytes; no rules are no bytes', () => {
    const bytes = encodeSiteRules(rules);
    expect(decodeSiteRules(bytes)).toEqual(rules);
    expect(encodeSiteRules({ redirects: [], headers: [] }).length).toBe(0);
  });

  it('refuses, when read, rules that the fence refuses or that are not canonical', () => {
    const forged = (value: unknown) => () => decodeSiteRules(Buffer.from(JSON.stringify(value)));
    expect(forged({ redirects: [], headers: [['/*', [['set-cookie', 'a=b']], []]] })).toThrow(
      /never set cookies/,
    );
    expect(
      forged({
        redirects: [],
        headers: [['/*', [['content-security-policy', 'sandbox allow-same-origin']], []]],
      }),
    ).toThrow(/sandbox/);
    expect(
      forged({ redirects: [['/a', 'https://evil.example/', 302, false]], headers: [] }),
    ).toThrow(/another origin/);
    expect(forged({ redirects: [['/a', '/b', 305, false]], headers: [] })).toThrow(/305/);
    expect(forged({ redirects: [], headers: [['/*', [], ['x-content-type-options']]] })).toThrow(
      /nosniff/,
    );
    expect(forged({ headers: [], redirects: [] })).toThrow(/canonical/);
    expect(() => decodeSiteRules(Buffer.from(' {"redirects":[],"headers":[]}'))).toThrow(
      RulesError,
    );
    expect(forged({ redirects: 'x', headers: [] })).toThrow(/shape/);
  });
});
