import { request } from 'node:http';
import { AddressInfo } from 'node:net';
import { brotliDecompressSync } from 'node:zlib';
import { MeteringService } from '../metering/metering.service';
import { SiteDirectory } from './site-directory';
import { newSiteTestApp, SiteTestApp } from './site-test-app.spec-support';

/**
 * The site edge over a real socket: one pipeline for every site request, a cached hit answered
 * from memory (no read of the chain) with the headers of the cold answer, everything else of
 * the listener left to Fastify.
 */
interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
  /** Reads of the chain (the in-memory source) the request caused. */
  reads: number;
}

const CSS = 'body { color: red; }\n'.repeat(100);
const VOLATILE = new Set(['date', 'ratelimit-remaining', 'ratelimit-reset']);

function send(
  port: number,
  path: string,
  headers: Record<string, string>,
  method = 'GET',
): Promise<Omit<Answer, 'reads'>> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, method, headers, agent: false }, (res) => {
      const parts: Buffer[] = [];
      res.on('data', (d: Buffer) => parts.push(d));
      res.on('end', () =>
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(parts) }),
      );
    });
    req.on('error', reject);
    req.end();
  });
}

async function listen(t: SiteTestApp): Promise<number> {
  await t.app.listen(0, '127.0.0.1');
  return (t.app.getHttpServer().address() as AddressInfo).port;
}

describe('SiteEdge', () => {
  let t: SiteTestApp;
  let port: number;
  let label: string;
  let tape: string;

  beforeAll(async () => {
    t = await newSiteTestApp();
    port = await listen(t);
    ({ label, tape } = await t.addSite({
      'index.html': '<h1>home</h1>',
      'app.css': CSS,
      '404.html': 'custom 404',
      'docs/index.html': 'docs',
      healthz: 'a site file named healthz',
    }));
  });
  afterAll(() => t.close());

  async function get(
    path: string,
    headers: Record<string, string> = {},
    method = 'GET',
    host = `${label}.localhost`,
  ): Promise<Answer> {
    const before = t.source.reads.length;
    const answer = await send(port, path, { host, ...headers }, method);
    return { ...answer, reads: t.source.reads.length - before };
  }

  function stable(headers: Answer['headers']) {
    return Object.fromEntries(Object.entries(headers).filter(([name]) => !VOLATILE.has(name)));
  }

  it('answers a cached page from memory with the headers of its cold answer', async () => {
    const cold = await get('/');
    const hot = await get('/');
    expect(cold.reads).toBeGreaterThan(0);
    expect(hot.reads).toBe(0);
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
    expect(revalidated.reads).toBe(0);
    expect(revalidated.status).toBe(304);
    expect(revalidated.headers.etag).toBe(page.headers.etag);
    expect(revalidated.headers['cache-control']).toBe(page.headers['cache-control']);
    expect(revalidated.headers['content-security-policy']).toBe(
      page.headers['content-security-policy'],
    );
    const head = await get('/', {}, 'HEAD');
    expect(head.reads).toBe(0);
    expect(head.headers['content-length']).toBe(String('<h1>home</h1>'.length));
    expect(head.body.length).toBe(0);
  });

  it('serves a compressed variant once it exists, and the site 404 page', async () => {
    const first = await get('/app.css', { 'accept-encoding': 'br' });
    const second = await get('/app.css', { 'accept-encoding': 'br' });
    expect(second.reads).toBe(0);
    expect(stable(second.headers)).toEqual(stable(first.headers));
    expect(brotliDecompressSync(second.body).toString()).toBe(CSS);
    await get('/missing.txt');
    const missing = await get('/missing.txt');
    expect(missing.reads).toBe(0);
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
  ])(
    'answers %s through the same pipeline, metered',
    async (_what, path, headers, method, status) => {
      const res = await get(path, headers, method);
      expect(res.status).toBe(status);
      expect(res.headers['ratelimit-limit']).toMatch(/^\d+$/);
      expect(res.headers['x-content-type-options']).toBe('nosniff');
    },
  );

  it('leaves gateway routes on gateway hosts to Fastify; a site host keeps every path', async () => {
    const health = await get('/healthz', {}, 'GET', 'localhost');
    expect(health.status).toBe(200);
    expect(health.headers['ratelimit-limit']).toBeUndefined();
    const file = await get('/healthz');
    expect([file.status, file.body.toString()]).toEqual([200, 'a site file named healthz']);
    const unknown = await get('/', {}, 'GET', 'nosuchlabel.localhost');
    expect(unknown.status).toBe(404);
    expect(unknown.headers['content-type']).toBe('text/html; charset=utf-8');
  });

  it('serves an absolute-form target on a site host as a path of the site', async () => {
    const res = await get(`http://${label}.localhost/healthz`);
    expect([res.status, res.body.toString()]).toEqual([200, 'a site file named healthz']);
  });

  it('answers the same failure with the same built-in 500 page on every site route', async () => {
    const directory = t.app.get(SiteDirectory);
    const spy = jest.spyOn(directory, 'isExpired').mockImplementation(() => {
      throw new Error('a bug');
    });
    try {
      for (const [path, host] of [
        ['/', `${label}.localhost`],
        [`/site/${tape}/`, 'localhost'],
      ]) {
        const res = await get(path, {}, 'GET', host);
        expect([path, res.status]).toEqual([path, 500]);
        expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
        expect(res.headers['cache-control']).toBe('no-store');
        expect(res.body.toString()).toContain('500 Internal Server Error');
      }
    } finally {
      spy.mockRestore();
    }
  });
});

describe('SiteEdge metering', () => {
  it("refuses over budget with the metering gate's 429, by hostname and by path", async () => {
    const t = await newSiteTestApp({}, { site: { limit: 3, ttl_secs: 60 } });
    try {
      const port = await listen(t);
      const { label, tape } = await t.addSite({ 'index.html': 'x' });
      const statuses: number[] = [];
      for (let i = 0; i < 3; i++) {
        statuses.push((await send(port, '/', { host: `${label}.localhost` })).status);
      }
      const byHost = await send(port, '/', { host: `${label}.localhost` });
      const byPath = await send(port, `/site/${tape}/`, { host: 'localhost' });
      expect([...statuses, byHost.status, byPath.status]).toEqual([200, 200, 200, 429, 429]);
      for (const refusal of [byHost, byPath]) {
        expect(refusal.headers['retry-after']).toMatch(/^\d+$/);
        expect(refusal.headers['ratelimit-remaining']).toBe('0');
        expect(refusal.headers['cache-control']).toBe('no-store');
        expect(JSON.parse(refusal.body.toString())).toMatchObject({
          error: { code: 'too_many_requests' },
        });
      }
      expect(byPath.body.equals(byHost.body)).toBe(true);
    } finally {
      await t.close();
    }
  });

  it('answers a failing metering store on a cached page with the built-in 500 page', async () => {
    const t = await newSiteTestApp();
    try {
      const port = await listen(t);
      const { label } = await t.addSite({ 'index.html': 'x' });
      // Cached first: a hit fails the same way as a miss.
      expect((await send(port, '/', { host: `${label}.localhost` })).status).toBe(200);
      jest
        .spyOn(t.app.get(MeteringService), 'meterRequest')
        .mockImplementation(() => Promise.reject(new Error('store down')));
      const res = await send(port, '/', { host: `${label}.localhost` });
      expect(res.status).toBe(500);
      expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
      expect(res.body.toString()).toContain('500 Internal Server Error');
    } finally {
      await t.close();
    }
  });
});
