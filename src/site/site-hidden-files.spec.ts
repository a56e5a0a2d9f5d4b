import { request } from 'node:http';
import { AddressInfo } from 'node:net';
import { isHiddenName } from '../chain/hidden-names';
import { newSiteTestApp, SiteTestApp } from './site-test-app.spec-support';

/**
 * Hidden files are never published, whatever a tape holds (a program from before the rule may
 * have stored `.env` or `.well-known/…` names): every path with a segment that starts with `.`
 * answers the gateway's built-in 404 page, with no byte from the tape, by tape path and by
 * hostname, in the cold and in the cached (hot path) case. Over a real socket, so the hot path
 * that answers cached hits before Fastify is part of what is tested.
 */
const SECRET = 'AWS_SECRET_ACCESS_KEY=hunter2';
const CHALLENGE = 'acme-token.tenant-controls-this';
const CUSTOM_404 = '<h1>tenant 404 page</h1>';
const SPA_INDEX = '<h1>spa index</h1>';

const HIDDEN_PATHS = [
  '/.env',
  '/%2eenv',
  '/%2Eenv',
  '/.well-known/acme-challenge/tok',
  '/%2ewell-known/acme-challenge/tok',
  '/.%77ell-known/acme-challenge/tok',
  '/a/.git/config',
  '/a/%2egit/config',
  '/.well-known/',
  '/.well-known',
  '/.hidden',
  '/a/.git/',
];

describe('site routes: hidden files', () => {
  let t: SiteTestApp;
  let port: number;
  let tape: string;
  let label: string;

  beforeAll(async () => {
    t = await newSiteTestApp();
    await t.app.listen(0, '127.0.0.1');
    port = (t.app.getHttpServer().address() as AddressInfo).port;
    ({ tape, label } = await t.addSite({
      'index.html': SPA_INDEX,
      '404.html': CUSTOM_404,
      '_site.json': '{"spa_fallback": true}',
      '.env': SECRET,
      '.well-known/acme-challenge/tok': CHALLENGE,
      '.well-known/index.html': SECRET,
      'a/.git/config': SECRET,
      'a/.git/index.html': SECRET,
      '.hidden.html': SECRET,
      'visible.txt': 'visible',
    }));
  });
  afterAll(() => t.close());

  function get(
    path: string,
    host: string,
    method = 'GET',
  ): Promise<{ status: number; body: string; headers: Record<string, unknown> }> {
    return new Promise((resolve, reject) => {
      const req = request(
        { host: '127.0.0.1', port, path, method, headers: { host }, agent: false },
        (res) => {
          const parts: Buffer[] = [];
          res.on('data', (d: Buffer) => parts.push(d));
          res.on('end', () =>
            resolve({
              status: res.statusCode ?? 0,
              body: Buffer.concat(parts).toString(),
              headers: res.headers,
            }),
          );
        },
      );
      req.on('error', reject);
      req.end();
    });
  }

  const routes: [string, (path: string, method?: string) => ReturnType<typeof get>][] = [
    ['tape path', (p, m) => get(`/site/${tape}${p}`, 'localhost:8080', m)],
    ['hostname', (p, m) => get(p, `${label}.localhost:8080`, m)],
  ];

  it.each(routes)(
    'the control: %s serves visible files and the tenant 404 page',
    async (_n, fetch) => {
      expect((await fetch('/visible.txt')).body).toBe('visible');
      const missing = await fetch('/missing.txt');
      expect([missing.status, missing.body]).toEqual([404, CUSTOM_404]);
      expect((await fetch('/some/route')).body).toBe(SPA_INDEX);
    },
  );

  it.each(routes)(
    '%s: hidden paths answer the built-in 404, cold and cached',
    async (_n, fetch) => {
      for (const path of HIDDEN_PATHS) {
        // Twice: the second request finds every name of the site cached (hot path territory).
        for (const round of [1, 2]) {
          const res = await fetch(path);
          expect({ path, round, status: res.status }).toEqual({ path, round, status: 404 });
          expect(res.body).toMatch(/404 Not Found/);
          for (const tapeBody of [SECRET, CHALLENGE, CUSTOM_404, SPA_INDEX]) {
            expect(res.body).not.toContain(tapeBody);
          }
        }
        const head = await fetch(path, 'HEAD');
        expect([path, head.status]).toEqual([path, 404]);
      }
    },
  );

  it('never asks the chain for a hidden name', () => {
    const asked = t.source.reads.flatMap((r) => r.names);
    expect(asked.length).toBeGreaterThan(0);
    expect(asked.filter(isHiddenName)).toEqual([]);
  });
});
