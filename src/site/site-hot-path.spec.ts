import { request } from 'node:http';
import { AddressInfo } from 'node:net';
import { brotliDecompressSync } from 'node:zlib';
import { SiteHotPath } from './site-hot-path';
import { newSiteTestApp, SiteTestApp } from './site-test-app.spec-support';

/**
 * The hot path answers cached hits before Fastify: over a real socket, its answers must be the
 * site routes' answers, header for header, and everything it does not handle must reach them.
 */
interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
  /** Whether the hot path answered it. */
  hot: boolean;
}

const CSS = 'body { color: red; }\n'.repeat(100);
const VOLATILE = new Set(['date', 'ratelimit-remaining', 'ratelimit-reset']);

describe('SiteHotPath', () => {
  let t: SiteTestApp;
  let port: number;
  let label: string;
  const served: boolean[] = [];

  beforeAll(async () => {
    t = await newSiteTestApp();
    const hot = t.app.get(SiteHotPath);
    const original = hot.tryServe.bind(hot);
    jest.spyOn(hot, 'tryServe').mockImplementation((req, res) => {
      const answered = original(req, res);
      served.push(answered);
      return answered;
    });
    await t.app.listen(0, '127.0.0.1');
    port = (t.app.getHttpServer().address() as AddressInfo).port;
    ({ label } = await t.addSite({
      'index.html': '<h1>home</h1>',
      'app.css': CSS,
      '404.html': 'custom 404',
      'docs/index.html': 'docs',
    }));
  });
  afterAll(() => t.close());

  function get(
    path: string,
    headers: Record<string, string> = {},
    method = 'GET',
    host = `${label}.localhost`,
  ): Promise<Answer> {
    return new Promise((resolve, reject) => {
      const req = request(
        { host: '127.0.0.1', port, path, method, headers: { host, ...headers }, agent: false },
        (res) => {
          const parts: Buffer[] = [];
          res.on('data', (d: Buffer) => parts.push(d));
          res.on('end', () =>
            resolve({
              status: res.statusCode ?? 0,
              headers: res.headers,
              body: Buffer.concat(parts),
              hot: served[served.length - 1],
            }),
          );
        },
      );
      req.on('error', reject);
      req.end();
    });
  }

  function stable(headers: Answer['headers']) {
    return Object.fromEntries(Object.entries(headers).filter(([name]) => !VOLATILE.has(name)));
  }

  it('answers the second request for a page itself, exactly as the site route did', async () => {
    const cold = await get('/');
    const hot = await get('/');
    expect(cold.hot).toBe(false);
    expect(hot.hot).toBe(true);
    expect(hot.status).toBe(200);
    expect(hot.body.toString()).toBe('<h1>home</h1>');
    expect(stable(hot.headers)).toEqual(stable(cold.headers));
    expect(Number(hot.headers['ratelimit-remaining'])).toBe(
      Number(cold.headers['ratelimit-remaining']) - 1,
    );
  });

  it('answers 304 and HEAD from memory', async () => {
    const page = await get('/');
    const revalidated = await get('/', { 'if-none-match': page.headers.etag as string });
    expect(revalidated.hot).toBe(true);
    expect(revalidated.status).toBe(304);
    expect(revalidated.headers.etag).toBe(page.headers.etag);
    expect(revalidated.headers['cache-control']).toBe(page.headers['cache-control']);
    expect(revalidated.headers['content-security-policy']).toBe(
      page.headers['content-security-policy'],
    );
    const head = await get('/', {}, 'HEAD');
    expect(head.hot).toBe(true);
    expect(head.headers['content-length']).toBe(String('<h1>home</h1>'.length));
    expect(head.body.length).toBe(0);
  });

  it('serves a compressed variant once it exists, and the site 404 page', async () => {
    const first = await get('/app.css', { 'accept-encoding': 'br' });
    const second = await get('/app.css', { 'accept-encoding': 'br' });
    expect(first.hot).toBe(false);
    expect(second.hot).toBe(true);
    expect(stable(second.headers)).toEqual(stable(first.headers));
    expect(brotliDecompressSync(second.body).toString()).toBe(CSS);
    await get('/missing.txt');
    const missing = await get('/missing.txt');
    expect(missing.hot).toBe(true);
    expect(missing.status).toBe(404);
    expect(missing.body.toString()).toBe('custom 404');
  });

  it.each([
    ['a range', '/', { range: 'bytes=0-3' }, 'GET', 206],
    ['a cross-origin read', '/', { origin: 'https://elsewhere.example' }, 'GET', 200],
    ['a download', '/?download=1', {}, 'GET', 200],
    ['a redirect', '/docs', {}, 'GET', 308],
    [
      'a preflight',
      '/',
      { origin: 'https://x.example', 'access-control-request-method': 'GET' },
      'OPTIONS',
      204,
    ],
    ['another method', '/', {}, 'DELETE', 405],
  ])('leaves %s to the site routes', async (_what, path, headers, method, status) => {
    await get(path, headers, method);
    const res = await get(path, headers, method);
    expect(res.hot).toBe(false);
    expect(res.status).toBe(status);
  });

  it('leaves gateway hosts and unknown hosts alone', async () => {
    const health = await get('/healthz', {}, 'GET', 'localhost');
    expect(health.hot).toBe(false);
    expect(health.status).toBe(200);
    await get('/', {}, 'GET', 'nosuchlabel.localhost');
    const unknown = await get('/', {}, 'GET', 'nosuchlabel.localhost');
    expect(unknown.hot).toBe(false);
    expect(unknown.status).toBe(404);
  });
});

describe('SiteHotPath metering', () => {
  it('refuses over budget with the 429 of the site routes', async () => {
    const t = await newSiteTestApp({}, { site: { limit: 3, ttl_secs: 60 } });
    try {
      await t.app.listen(0, '127.0.0.1');
      const port = (t.app.getHttpServer().address() as AddressInfo).port;
      const { label } = await t.addSite({ 'index.html': 'x' });
      const statuses: number[] = [];
      let refusal: { headers: Record<string, unknown>; body: string } | undefined;
      for (let i = 0; i < 4; i++) {
        await new Promise<void>((resolve, reject) => {
          const req = request(
            {
              host: '127.0.0.1',
              port,
              path: '/',
              headers: { host: `${label}.localhost` },
              agent: false,
            },
            (res) => {
              let body = '';
              res.on('data', (d: Buffer) => (body += d.toString()));
              res.on('end', () => {
                statuses.push(res.statusCode ?? 0);
                if (res.statusCode === 429) refusal = { headers: res.headers, body };
                resolve();
              });
            },
          );
          req.on('error', reject);
          req.end();
        });
      }
      expect(statuses).toEqual([200, 200, 200, 429]);
      expect(refusal?.headers['retry-after']).toMatch(/^\d+$/);
      expect(refusal?.headers['ratelimit-remaining']).toBe('0');
      expect(JSON.parse(refusal!.body)).toMatchObject({ error: { code: 'too_many_requests' } });
    } finally {
      await t.close();
    }
  });
});
