import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { newSiteTestApp, useSiteTestApp } from './site-test-app.spec-support';

/**
 * The site routes injected into the HTTP server's request listener: the real site edge, host
 * router, metering gate, service, responder, track store and object reader; the chain is an
 * in-memory source. (test/site*.e2e-spec.ts repeats the
 * main rows against a real gateway process, the local network and `tape deploy`.)
 */
const INDEX = '<!doctype html><title>home</title><h1>home</h1>';
const CSS = 'body { color: #333; }\n'.repeat(100);

describe('site routes', () => {
  // An app and a published version: a few seconds on a busy 2-core machine.
  const site = useSiteTestApp(
    {
      'index.html': INDEX,
      'app.css': CSS,
      'docs/index.html': '<h1>docs</h1>',
      'about.html': '<h1>about</h1>',
      '404.html': '<h1>custom missing</h1>',
      'café/menü.pdf': Buffer.from('%PDF-1.4 fake'),
      'logo.png': Buffer.alloc(3000, 7),
      '_site.json': JSON.stringify({ cors_origins: ['https://reader.example'] }),
      healthz: 'site file named healthz',
    },
    { timeout: 30_000 },
  );

  const get = (
    url: string,
    headers: Record<string, string> = {},
    method: 'GET' | 'HEAD' | 'OPTIONS' | 'POST' = 'GET',
  ) => site.app.inject({ method, url, headers });
  const host = (
    path: string,
    headers: Record<string, string> = {},
    method: 'GET' | 'HEAD' | 'OPTIONS' = 'GET',
  ) => get(path, { host: `${site.label}.localhost:8080`, ...headers }, method);

  describe.each([
    [
      'path route',
      (p: string, h?: Record<string, string>) => get(`/site/${site.tape}${p}`, h),
      () => `/site/${site.tape}`,
    ],
    ['hostname route', (p: string, h?: Record<string, string>) => host(p, h), () => ''],
  ])('%s', (_name, fetchPath, mount) => {
    it('serves index.html at the root with the site headers', async () => {
      const res = await fetchPath('/');
      expect(res.statusCode).toBe(200);
      expect(res.body).toBe(INDEX);
      expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
      expect(res.headers['cache-control']).toBe('public, max-age=60, must-revalidate');
      expect(res.headers['x-content-type-options']).toBe('nosniff');
      expect(res.headers.etag).toMatch(/^"[0-9a-f]{64}"$/);
      expect(res.headers['content-security-policy']).toMatch(/default-src 'self'/);
      expect(res.headers['set-cookie']).toBeUndefined();
    });

    it('serves a directory index, a file, and clean URLs', async () => {
      expect((await fetchPath('/docs/')).body).toBe('<h1>docs</h1>');
      expect((await fetchPath('/app.css')).headers['content-type']).toBe('text/css; charset=utf-8');
      expect((await fetchPath('/about')).body).toBe('<h1>about</h1>');
    });

    it('redirects a directory without its slash, query kept', async () => {
      const res = await fetchPath('/docs?tab=2');
      expect(res.statusCode).toBe(308);
      expect(res.headers.location).toBe(`${mount()}/docs/?tab=2`);
    });

    it('answers a tape that has published no version with 404 and a page saying so', async () => {
      const empty = await site.app.addSite({});
      for (const path of ['/', '/index.html', '/docs/']) {
        const res = await get(`/site/${empty.tape}${path}`);
        expect(res.statusCode).toBe(404);
        expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
        expect(res.body).toContain('has published no version yet');
        expect(res.headers['x-tape-version']).toBeUndefined();
      }
      // A published site's miss keeps the generic page (or its own 404.html).
      const miss = await get(`/site/${site.tape}/no-such-page`);
      expect(miss.body).not.toContain('has published no version yet');
    });

    it('answers a missing path with the site 404.html and status 404', async () => {
      const res = await fetchPath('/nope.html');
      expect(res.statusCode).toBe(404);
      expect(res.body).toBe('<h1>custom missing</h1>');
      expect(res.headers['cache-control']).toBe('public, max-age=60, must-revalidate');
    });

    it('never serves _site.json', async () => {
      const res = await fetchPath('/_site.json');
      expect(res.statusCode).toBe(404);
      expect(res.body).not.toContain('cors_origins');
    });

    it('answers 304 to a matching If-None-Match with the same ETag and caching headers', async () => {
      const first = await fetchPath('/');
      const res = await fetchPath('/', { 'if-none-match': first.headers.etag as string });
      expect(res.statusCode).toBe(304);
      expect(res.body).toBe('');
      expect(res.headers.etag).toBe(first.headers.etag);
      expect(res.headers['cache-control']).toBe(first.headers['cache-control']);
    });

    it('forces a download with an RFC 6266 name', async () => {
      const res = await fetchPath('/caf%C3%A9/men%C3%BC.pdf?download=1');
      expect(res.statusCode).toBe(200);
      expect(res.headers['content-disposition']).toBe(
        `attachment; filename="men_.pdf"; filename*=UTF-8''men%C3%BC.pdf`,
      );
      expect((await fetchPath('/app.css?download=1')).headers['content-disposition']).toBe(
        'attachment; filename="app.css"',
      );
    });

    it('answers ranges with 206 and unsatisfiable ones with 416', async () => {
      const res = await fetchPath('/logo.png', { range: 'bytes=10-19' });
      expect(res.statusCode).toBe(206);
      expect(res.headers['content-range']).toBe('bytes 10-19/3000');
      expect(res.rawPayload).toEqual(Buffer.alloc(10, 7));
      const bad = await fetchPath('/logo.png', { range: 'bytes=5000-' });
      expect(bad.statusCode).toBe(416);
      expect(bad.headers['content-range']).toBe('bytes */3000');
    });

    it('compresses text for clients that accept it, with a distinct ETag', async () => {
      const plain = await fetchPath('/app.css');
      const br = await fetchPath('/app.css', { 'accept-encoding': 'gzip, br' });
      expect(br.headers['content-encoding']).toBe('br');
      expect(br.headers.vary).toMatch(/Accept-Encoding/);
      expect(brotliDecompressSync(br.rawPayload).toString()).toBe(CSS);
      expect(br.headers.etag).toBe((plain.headers.etag as string).replace(/"$/, '-br"'));
      const gz = await fetchPath('/app.css', { 'accept-encoding': 'gzip' });
      expect(gunzipSync(gz.rawPayload).toString()).toBe(CSS);
      const again = await fetchPath('/app.css', {
        'accept-encoding': 'br',
        'if-none-match': br.headers.etag as string,
      });
      expect(again.statusCode).toBe(304);
      // The identity ETag does not validate the brotli representation.
      const mismatch = await fetchPath('/app.css', {
        'accept-encoding': 'br',
        'if-none-match': plain.headers.etag as string,
      });
      expect(mismatch.statusCode).toBe(200);
    });

    it('grants CORS only to the origins of cors_origins', async () => {
      const allowed = await fetchPath('/', { origin: 'https://reader.example' });
      expect(allowed.headers['access-control-allow-origin']).toBe('https://reader.example');
      expect(allowed.headers.vary).toMatch(/Origin/);
      const other = await fetchPath('/', { origin: 'https://evil.example' });
      expect(other.headers['access-control-allow-origin']).toBeUndefined();
    });

    // The injector normalises `..` (as WHATWG URLs do); raw dot segments are sent over a socket
    // in test/site-paths.e2e-spec.ts.
    it('refuses hostile paths with 400', async () => {
      for (const path of ['/a//b', '/a%5Cb', '/a%00b', '/a%2F..%2Fb', '/' + 'a'.repeat(1100)]) {
        const res = await fetchPath(path);
        expect(res.statusCode).toBe(400);
        expect(res.headers['cache-control']).toBe('no-store');
        expect(res.body).toMatch(/400 Bad Request/);
      }
      // Invalid UTF-8 is already refused by Fastify's router (FST_ERR_BAD_URL), also with 400.
      expect((await fetchPath('/%C0%AF')).statusCode).toBe(400);
    });
  });

  it('redirects /site/{tape} to /site/{tape}/ with the query', async () => {
    const res = await get(`/site/${site.tape}?a=1&b=2`);
    expect(res.statusCode).toBe(308);
    expect(res.headers.location).toBe(`/site/${site.tape}/?a=1&b=2`);
  });

  it('answers an unknown or malformed tape with 404', async () => {
    const unknown = await get('/site/11111111111111111111111111111111/');
    expect(unknown.statusCode).toBe(404);
    expect((await get('/site/not-a-tape/')).statusCode).toBe(404);
  });

  it('answers an expired tape with 410', async () => {
    const expired = await site.app.addSite({ 'index.html': 'x' }, { kind: 'expired' });
    const res = await get(`/site/${expired.tape}/`);
    expect(res.statusCode).toBe(410);
    expect(res.body).toMatch(/no longer served/);
  });

  it('answers an expiring tape with 410 once its time is up, reading the tape again once', async () => {
    const soon = await site.app.addSite(
      { 'index.html': 'x' },
      { kind: 'active', expiresInMs: 1000 },
    );
    expect((await get(`/site/${soon.tape}/`)).statusCode).toBe(200);
    await new Promise((r) => setTimeout(r, 1050));
    // The chain now says what the clock said: expired.
    site.app.source.tapes.get(soon.tape)!.status = { kind: 'expired' };
    const calls = site.app.source.statusReads;
    expect((await get(`/site/${soon.tape}/`)).statusCode).toBe(410);
    expect((await get(`/site/${soon.tape}/`)).statusCode).toBe(410);
    expect(site.app.source.statusReads).toBe(calls + 1);
  });

  it('keeps serving a tape extended while its old expiry was cached', async () => {
    const extended = await site.app.addSite(
      { 'index.html': 'x' },
      { kind: 'active', expiresInMs: 1000 },
    );
    expect((await get(`/site/${extended.tape}/`)).statusCode).toBe(200);
    site.app.source.tapes.get(extended.tape)!.status = { kind: 'active', expiresInMs: 3_600_000 };
    await new Promise((r) => setTimeout(r, 1050));
    expect((await get(`/site/${extended.tape}/`)).statusCode).toBe(200);
  });

  it('uses the built-in 404 page when the site has none', async () => {
    const bare = await site.app.addSite({ 'index.html': 'x' });
    const res = await get(`/site/${bare.tape}/missing`);
    expect(res.statusCode).toBe(404);
    expect(res.body).toMatch(/404 Not Found/);
  });

  it('falls back to index.html for routes when spa_fallback is on, not for files', async () => {
    const spa = await site.app.addSite({
      'index.html': 'spa',
      '_site.json': '{"spa_fallback":true}',
    });
    const route = await get(`/site/${spa.tape}/users/42`);
    expect(route.statusCode).toBe(200);
    expect(route.body).toBe('spa');
    expect((await get(`/site/${spa.tape}/missing.png`)).statusCode).toBe(404);
  });

  it('serves a site file named like a gateway route on the hostname', async () => {
    expect((await host('/healthz')).body).toBe('site file named healthz');
    const gatewayHealth = await get('/healthz', { host: 'localhost:8080' });
    expect(gatewayHealth.headers['content-type']).toMatch(/application\/json/);
  });

  it('answers an unknown host under the suffix with 404', async () => {
    const res = await get('/', { host: 'nosuchlabel.localhost:8080' });
    expect(res.statusCode).toBe(404);
  });

  it('does not let /_host be called directly on the gateway host', async () => {
    const res = await get('/_host/', { host: 'localhost:8080' });
    expect(res.statusCode).toBe(404);
    expect(res.headers['content-type']).toMatch(/application\/json/);
  });

  it('answers HEAD with the headers of GET and no body', async () => {
    const res = await host('/logo.png', {}, 'HEAD');
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-length']).toBe('3000');
    expect(res.body).toBe('');
  });

  it('answers OPTIONS preflights', async () => {
    const res = await host(
      '/',
      { origin: 'https://reader.example', 'access-control-request-method': 'GET' },
      'OPTIONS',
    );
    expect(res.statusCode).toBe(204);
    expect(res.headers['access-control-allow-origin']).toBe('https://reader.example');
  });

  it('refuses other methods with 405', async () => {
    const res = await get(`/site/${site.tape}/`, {}, 'POST');
    expect(res.statusCode).toBe(405);
    expect(res.headers.allow).toBe('GET, HEAD, OPTIONS');
  });
});

describe('site routes metering', () => {
  it('counts site reads against the site budget and refuses with 429 past it', async () => {
    const t = await newSiteTestApp({}, { site: { limit: 2, ttl_secs: 60 } });
    try {
      const { tape } = await t.addSite({ 'index.html': 'x' });
      const first = await t.inject({ url: `/site/${tape}/` });
      expect(first.statusCode).toBe(200);
      expect(first.headers['ratelimit-limit']).toBe('2');
      expect(first.headers['ratelimit-remaining']).toBe('1');
      expect((await t.inject({ url: `/site/${tape}/` })).statusCode).toBe(200);
      const refused = await t.inject({ url: `/site/${tape}/` });
      expect(refused.statusCode).toBe(429);
      expect(refused.headers['retry-after']).toMatch(/^\d+$/);
      expect(refused.headers['cache-control']).toBe('no-store');
      expect(refused.json()).toMatchObject({ error: { code: 'too_many_requests' } });
    } finally {
      await t.close();
    }
  });
});
