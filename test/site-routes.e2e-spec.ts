import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { commitmentOfBuffer } from '../src/tracks/commitment';
import { startSiteGateway, SiteGateway } from './support/processes/site-gateway';
import { siteGet, SiteRequest, SiteResponse } from './support/clients/site-http';
import { publishSite, PublishedSite } from './support/labs/site-publish';
import { RpcRecorder, startRpcRecorder } from './support/proxies/rpc-recorder';

/**
 * Every row of the site routes, on the path route (`/site/{tape}/…`) and on a hostname route
 * (`<label>.localhost:<port>`), against a gateway process with the local network embedded;
 * the sites are published with the real `tape deploy`.
 */
jest.setTimeout(300_000);

const INDEX = '<!doctype html><title>home</title><h1>home</h1>';
const CSS = 'body { color: #333; margin: 0 auto; }\n'.repeat(200);
const LOGO = randomBytes(3000);
/** Larger than the gateway's cache_object_max_bytes below: it streams from the track store. */
const BIG = randomBytes(300 * 1024);

const FILES = {
  'index.html': INDEX,
  'app.css': CSS,
  'docs/index.html': '<h1>docs</h1>',
  'about.html': '<h1>about</h1>',
  '404.html': '<h1>custom missing</h1>',
  'café/menü.pdf': '%PDF-1.4 not really',
  'logo.png': LOGO,
  'big.bin': BIG,
  '_site.json': JSON.stringify({ cors_origins: ['https://reader.example'] }),
  healthz: 'a site file named healthz',
  'hot.txt': 'requested only by the cold and cached test',
  'object/x': 'a site file named object/x',
};

const etagOf = (body: string | Buffer) =>
  `"${commitmentOfBuffer(Buffer.isBuffer(body) ? body : Buffer.from(body)).commitment.toString('hex')}"`;

describe('site routes (gateway process, tape deploy)', () => {
  let gw: SiteGateway;
  let site: PublishedSite;
  let spa: PublishedSite;
  const dataDir = mkdtempSync(join(tmpdir(), 'site-routes-data-'));

  beforeAll(async () => {
    gw = await startSiteGateway({ dataDir, site: { cache_object_max_bytes: 64 * 1024 } });
    site = await publishSite(gw, FILES);
    spa = await publishSite(gw, {
      'index.html': '<h1>spa shell</h1>',
      '_site.json': JSON.stringify({ spa_fallback: true }),
    });
  });

  afterAll(async () => {
    site?.remove();
    spa?.remove();
    expect(await gw?.stop()).toBe(0);
    rmSync(dataDir, { recursive: true, force: true });
  });

  type Fetch = (path: string, request?: SiteRequest) => Promise<SiteResponse>;
  const routes: [string, () => Fetch, () => string][] = [
    [
      'path route',
      () => (p, r) => siteGet(gw.url, `/site/${site.tape}${p}`, r),
      () => `/site/${site.tape}`,
    ],
    [
      'hostname route',
      () => (p, r) => siteGet(gw.url, p, { ...r, host: `${site.label}.localhost:${gw.port}` }),
      () => '',
    ],
  ];

  describe.each(routes)('%s', (_name, fetcher, mount) => {
    let get: Fetch;
    beforeAll(() => (get = fetcher()));

    it('serves index.html at the root with every site header', async () => {
      const res = await get('/');
      expect(res.status).toBe(200);
      expect(res.text).toBe(INDEX);
      expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
      expect(res.headers['content-length']).toBe(String(Buffer.byteLength(INDEX)));
      expect(res.headers['cache-control']).toBe('public, max-age=60, must-revalidate');
      expect(res.headers['x-content-type-options']).toBe('nosniff');
      expect(res.headers.etag).toBe(etagOf(INDEX));
      // On the path route (the gateway's origin, shared by every site) the isolation sandbox
      // comes as a second policy (docs/site.md, "Isolation of path-served sites").
      expect(res.headers['content-security-policy']).toBe(
        "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; " +
          "img-src 'self' data: blob:; media-src 'self' data: blob:; font-src 'self' data:; " +
          "connect-src 'self'; worker-src 'self' blob:; manifest-src 'self'; frame-src 'self'; " +
          "frame-ancestors 'self'; base-uri 'self'; form-action 'self'; object-src 'none'" +
          (mount() === ''
            ? ''
            : ', sandbox allow-scripts allow-forms allow-popups allow-popups-to-escape-sandbox ' +
              'allow-modals allow-downloads'),
      );
      expect(res.headers['access-control-allow-origin']).toBeUndefined();
      expect(res.headers['set-cookie']).toBeUndefined();
    });

    it('serves directory indexes, files with their content type, and clean URLs', async () => {
      expect((await get('/docs/')).text).toBe('<h1>docs</h1>');
      const logo = await get('/logo.png');
      expect(logo.headers['content-type']).toBe('image/png');
      expect(logo.body.equals(LOGO)).toBe(true);
      expect(logo.headers.etag).toBe(etagOf(LOGO));
      expect((await get('/about')).text).toBe('<h1>about</h1>');
      expect((await get('/caf%C3%A9/men%C3%BC.pdf')).text).toBe('%PDF-1.4 not really');
    });

    it('redirects a directory path without its slash (308, query kept)', async () => {
      const res = await get('/docs?tab=2');
      expect(res.status).toBe(308);
      expect(res.headers.location).toBe(`${mount()}/docs/?tab=2`);
    });

    it('answers a missing path with the site 404.html and status 404', async () => {
      for (const path of ['/nope.html', '/nope', '/about/', '/docs/missing.png']) {
        const res = await get(path);
        expect(res.status).toBe(404);
        expect(res.text).toBe('<h1>custom missing</h1>');
        expect(res.headers['x-content-type-options']).toBe('nosniff');
      }
    });

    it('reads _site.json but never serves it', async () => {
      const res = await get('/_site.json');
      expect(res.status).toBe(404);
      expect(res.text).not.toContain('cors_origins');
    });

    it('answers If-None-Match with 304, the same ETag and caching headers', async () => {
      const res = await get('/', { headers: { 'if-none-match': etagOf(INDEX) } });
      expect(res.status).toBe(304);
      expect(res.body.length).toBe(0);
      expect(res.headers.etag).toBe(etagOf(INDEX));
      expect(res.headers['cache-control']).toBe('public, max-age=60, must-revalidate');
      const stale = await get('/', { headers: { 'if-none-match': '"0000"' } });
      expect(stale.status).toBe(200);
    });

    it('forces a download with ?download=1, RFC 6266 name for non-ASCII', async () => {
      const pdf = await get('/caf%C3%A9/men%C3%BC.pdf?download=1');
      expect(pdf.status).toBe(200);
      expect(pdf.headers['content-disposition']).toBe(
        `attachment; filename="men_.pdf"; filename*=UTF-8''men%C3%BC.pdf`,
      );
      expect((await get('/logo.png?download=1')).headers['content-disposition']).toBe(
        'attachment; filename="logo.png"',
      );
      expect((await get('/logo.png')).headers['content-disposition']).toBeUndefined();
    });

    it('answers ranges: 206 single, multipart, 416, If-Range', async () => {
      const single = await get('/logo.png', { headers: { range: 'bytes=100-199' } });
      expect(single.status).toBe(206);
      expect(single.headers['content-range']).toBe('bytes 100-199/3000');
      expect(single.body.equals(LOGO.subarray(100, 200))).toBe(true);
      const multi = await get('/logo.png', { headers: { range: 'bytes=0-9,2990-' } });
      expect(multi.status).toBe(206);
      expect(multi.headers['content-type']).toMatch(/^multipart\/byteranges; boundary=/);
      expect(multi.body.includes(LOGO.subarray(2990))).toBe(true);
      const unsatisfiable = await get('/logo.png', { headers: { range: 'bytes=5000-' } });
      expect(unsatisfiable.status).toBe(416);
      expect(unsatisfiable.headers['content-range']).toBe('bytes */3000');
      const changed = await get('/logo.png', {
        headers: { range: 'bytes=0-9', 'if-range': '"old"' },
      });
      expect(changed.status).toBe(200);
      expect(changed.body.length).toBe(3000);
    });

    it('streams an object larger than the cache, whole and by range', async () => {
      const whole = await get('/big.bin');
      expect(whole.status).toBe(200);
      expect(whole.body.equals(BIG)).toBe(true);
      expect(whole.headers.etag).toBe(etagOf(BIG));
      const middle = await get('/big.bin', { headers: { range: 'bytes=100000-200000' } });
      expect(middle.status).toBe(206);
      expect(middle.body.equals(BIG.subarray(100000, 200001))).toBe(true);
    });

    it('compresses text with br or gzip when accepted, with its own ETag and Vary', async () => {
      const br = await get('/app.css', { headers: { 'accept-encoding': 'gzip, deflate, br' } });
      expect(br.headers['content-encoding']).toBe('br');
      expect(br.headers.vary).toMatch(/Accept-Encoding/);
      expect(br.headers.etag).toBe(etagOf(CSS).replace(/"$/, '-br"'));
      expect(brotliDecompressSync(br.body).toString()).toBe(CSS);
      expect(br.body.length).toBeLessThan(CSS.length / 5);
      const gzip = await get('/app.css', { headers: { 'accept-encoding': 'gzip' } });
      expect(gzip.headers['content-encoding']).toBe('gzip');
      expect(gunzipSync(gzip.body).toString()).toBe(CSS);
      const plain = await get('/app.css');
      expect(plain.headers['content-encoding']).toBeUndefined();
      expect(plain.text).toBe(CSS);
      const revalidated = await get('/app.css', {
        headers: { 'accept-encoding': 'br', 'if-none-match': br.headers.etag as string },
      });
      expect(revalidated.status).toBe(304);
      expect(revalidated.headers.etag).toBe(br.headers.etag);
      // Images are not compressed.
      expect(
        (await get('/logo.png', { headers: { 'accept-encoding': 'br' } })).headers[
          'content-encoding'
        ],
      ).toBeUndefined();
    });

    it('grants CORS only to origins in cors_origins, and answers preflights', async () => {
      const allowed = await get('/', { headers: { origin: 'https://reader.example' } });
      expect(allowed.headers['access-control-allow-origin']).toBe('https://reader.example');
      expect(allowed.headers.vary).toMatch(/Origin/);
      const refused = await get('/', { headers: { origin: 'https://evil.example' } });
      expect(refused.headers['access-control-allow-origin']).toBeUndefined();
      const preflight = await get('/', {
        method: 'OPTIONS',
        headers: {
          origin: 'https://reader.example',
          'access-control-request-method': 'GET',
          'access-control-request-headers': 'range',
        },
      });
      expect(preflight.status).toBe(204);
      expect(preflight.headers['access-control-allow-origin']).toBe('https://reader.example');
      expect(preflight.headers['access-control-allow-methods']).toBe('GET, HEAD, OPTIONS');
      const refusedPreflight = await get('/', {
        method: 'OPTIONS',
        headers: { origin: 'https://evil.example', 'access-control-request-method': 'GET' },
      });
      expect(refusedPreflight.headers['access-control-allow-origin']).toBeUndefined();
    });

    it('answers HEAD with the headers of GET and no body', async () => {
      const head = await get('/big.bin', { method: 'HEAD' });
      expect(head.status).toBe(200);
      expect(head.headers['content-length']).toBe(String(BIG.length));
      expect(head.headers.etag).toBe(etagOf(BIG));
      expect(head.body.length).toBe(0);
    });

    it('refuses methods other than GET, HEAD and OPTIONS', async () => {
      const res = await get('/', { method: 'DELETE' });
      expect(res.status).toBe(405);
      expect(res.headers.allow).toBe('GET, HEAD, OPTIONS');
    });
  });

  describe('single-page fallback', () => {
    const viaPath: Fetch = (p, r) => siteGet(gw.url, `/site/${spa.tape}${p}`, r);
    const viaHost: Fetch = (p, r) =>
      siteGet(gw.url, p, { ...r, host: `${spa.label}.localhost:${gw.port}` });

    it.each([
      ['path', () => viaPath],
      ['hostname', () => viaHost],
    ])('serves index.html for routes on the %s route, 404 for missing files', async (_n, pick) => {
      const get = pick();
      for (const route of ['/users/42', '/a/b/', '/settings']) {
        const res = await get(route);
        expect(res.status).toBe(200);
        expect(res.text).toBe('<h1>spa shell</h1>');
      }
      const image = await get('/missing.png');
      expect(image.status).toBe(404);
      expect(image.text).toMatch(/404 Not Found/);
    });
  });

  it('redirects /site/{tape} to /site/{tape}/ with the query', async () => {
    const res = await siteGet(gw.url, `/site/${site.tape}?a=1&b=2`);
    expect(res.status).toBe(308);
    expect(res.headers.location).toBe(`/site/${site.tape}/?a=1&b=2`);
    const head = await siteGet(gw.url, `/site/${site.tape}`, { method: 'HEAD' });
    expect(head.status).toBe(308);
  });

  it('answers unknown tapes and hosts with 404, never another site', async () => {
    const unknownTape = await siteGet(gw.url, '/site/11111111111111111111111111111111/');
    expect(unknownTape.status).toBe(404);
    expect((await siteGet(gw.url, '/site/not-a-tape/')).status).toBe(404);
    const unknownLabel = 'a'.repeat(52);
    for (const host of [
      `${unknownLabel}.localhost:${gw.port}`,
      `nosuchsite.localhost:${gw.port}`,
    ]) {
      const res = await siteGet(gw.url, '/', { host });
      expect(res.status).toBe(404);
      expect(res.text).not.toContain('home');
    }
  });

  it('keeps gateway routes on gateway hosts and serves site files of the same name on the site host', async () => {
    const gatewayHealth = await siteGet(gw.url, '/healthz', { host: `localhost:${gw.port}` });
    expect(gatewayHealth.status).toBe(200);
    expect(gatewayHealth.headers['content-type']).toMatch(/application\/json/);
    const host = `${site.label}.localhost:${gw.port}`;
    expect((await siteGet(gw.url, '/healthz', { host })).text).toBe('a site file named healthz');
    expect((await siteGet(gw.url, '/object/x', { host })).text).toBe('a site file named object/x');
    // The internal prefix is not a route of its own on a gateway host.
    const internal = await siteGet(gw.url, `/_host/`, { host: `localhost:${gw.port}` });
    expect(internal.status).toBe(404);
  });

  it('answers a page cold and cached through one writer: the same headers, in the same order', async () => {
    const host = `${site.label}.localhost:${gw.port}`;
    const first = await siteGet(gw.url, '/hot.txt', { host });
    const second = await siteGet(gw.url, '/hot.txt', { host });
    // The answer's prepared headers first, the metering gate's after, whichever way it was read.
    expect(Object.keys(first.headers)[0]).toBe('content-type');
    expect(Object.keys(second.headers)).toEqual(Object.keys(first.headers));
    const stable = (r: SiteResponse) =>
      Object.fromEntries(
        Object.entries(r.headers).filter(
          ([k]) => !['date', 'ratelimit-remaining', 'ratelimit-reset'].includes(k),
        ),
      );
    expect(stable(second)).toEqual(stable(first));
    expect(second.text).toBe(first.text);
  });

  it('sets no cookie on any answer', async () => {
    const host = `${site.label}.localhost:${gw.port}`;
    for (const path of ['/', '/nope', '/docs', '/%2e%2e/x', '/logo.png?download=1']) {
      expect((await siteGet(gw.url, path, { host })).headers['set-cookie']).toBeUndefined();
    }
  });

  describe('operator domains (gateway.site.domains), on a second, reader gateway', () => {
    let reader: SiteGateway;
    /** Every RPC method the reader gateway calls goes through it. */
    let rpc: RpcRecorder;

    beforeAll(async () => {
      rpc = await startRpcRecorder(gw.rpcUrl);
      reader = await startSiteGateway({
        dataDir,
        rpcUrl: rpc.url,
        site: {
          domains: { 'www.example.test': site.tape, 'app.example.test': spa.tape },
          // The recorder has no PubSub port behind it: the pointers would be polled every
          // second in the background, among the calls this reader's requests are counted by.
          pointer_poll_ms: 3_600_000,
        },
      });
    });
    afterAll(async () => {
      expect(await reader?.stop()).toBe(0);
      await rpc?.close();
    });

    it('reads a cold page with one account read and a warm one with no RPC call', async () => {
      rpc.reset();
      const cold = await siteGet(reader.url, '/about', { host: 'www.example.test' });
      expect(cold.text).toBe('<h1>about</h1>');
      // The tape's account (its pointer), and the network config once for the gateway's life;
      // the names come from the version's nodes in the store, read by commitment.
      const reads = rpc.methods().filter((m) => m === 'getAccountInfo');
      expect(reads.length).toBeGreaterThanOrEqual(1);
      expect(reads.length).toBeLessThanOrEqual(2);
      expect(
        rpc.methods().filter((m) => !['getAccountInfo', 'getSlot', 'getBlockTime'].includes(m)),
      ).toEqual([]);
      rpc.reset();
      for (let i = 0; i < 5; i++) {
        expect((await siteGet(reader.url, '/about', { host: 'www.example.test' })).status).toBe(
          200,
        );
      }
      expect(rpc.methods()).toEqual([]);
      // Another page of the warm site: its names are in the version's nodes, read from the
      // store by commitment; the pointer is cached (and refreshed by the subscription).
      expect((await siteGet(reader.url, '/app.css', { host: 'www.example.test' })).text).toBe(CSS);
      expect(rpc.methods()).toEqual([]);
    });

    it('serves each mapped host from its root with the site mapping', async () => {
      const home = await siteGet(reader.url, '/', { host: 'www.example.test' });
      expect(home.status).toBe(200);
      expect(home.text).toBe(INDEX);
      expect(home.headers.etag).toBe(etagOf(INDEX));
      expect((await siteGet(reader.url, '/docs/', { host: 'WWW.Example.TEST.:443' })).text).toBe(
        '<h1>docs</h1>',
      );
      const redirect = await siteGet(reader.url, '/docs', { host: 'www.example.test' });
      expect(redirect.status).toBe(308);
      expect(redirect.headers.location).toBe('/docs/');
      expect((await siteGet(reader.url, '/nope', { host: 'www.example.test' })).text).toBe(
        '<h1>custom missing</h1>',
      );
      const route = await siteGet(reader.url, '/deep/route', { host: 'app.example.test' });
      expect(route.status).toBe(200);
      expect(route.text).toBe('<h1>spa shell</h1>');
    });

    it('serves every kind of answer without ever listing a tape (no getProgramAccounts)', async () => {
      const host = { host: 'www.example.test' };
      const answers = [
        (await siteGet(reader.url, '/', host)).status,
        (await siteGet(reader.url, '/docs', host)).status,
        (await siteGet(reader.url, '/docs/', host)).status,
        (await siteGet(reader.url, '/nope', host)).status,
        (await siteGet(reader.url, '/_site.json', host)).status,
        (await siteGet(reader.url, '/logo.png?download=1', host)).status,
        (await siteGet(reader.url, '/', { ...host, headers: { 'if-none-match': etagOf(INDEX) } }))
          .status,
        (await siteGet(reader.url, '/app.css', { ...host, headers: { range: 'bytes=0-9' } }))
          .status,
        (await siteGet(reader.url, '/users/7', { host: 'app.example.test' })).status,
        (await siteGet(reader.url, `/site/${site.tape}/about`)).status,
        (await siteGet(reader.url, `/site/${spa.tape}/missing.png`)).status,
      ];
      expect(answers).toEqual([200, 308, 200, 404, 404, 200, 304, 206, 200, 200, 404]);
      expect(rpc.methods().length).toBeGreaterThan(0);
      expect(rpc.methods()).not.toContain('getProgramAccounts');
    });

    it('leaves unmapped hosts on the gateway routes (txt_domains is off)', async () => {
      const other = await siteGet(reader.url, '/', { host: 'other.example.test' });
      expect(other.status).toBe(404);
      expect(other.headers['content-type']).toMatch(/application\/json/);
      const viaPath = await siteGet(reader.url, `/site/${site.tape}/`, {
        host: 'other.example.test',
      });
      expect(viaPath.text).toBe(INDEX);
    });
  });
});
