import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { REPO_ROOT } from './support/processes/gateway';
import { startSiteGateway, SiteGateway } from './support/processes/site-gateway';
import { rawGet, siteGet } from './support/clients/site-http';
import { publishSite, PublishedSite } from './support/labs/site-publish';

/**
 * Hostile paths, sent as raw bytes (no client-side normalisation), on the path route and on a
 * hostname route: each answers 400 or 404 and never another tape's object or a gateway file.
 */
jest.setTimeout(300_000);

const SECRET = 'secret of the other tape';
const GATEWAY_FILE_MARKER = JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8'))
  .description as string;

const HOSTILE = [
  '/../index.html',
  '/./index.html',
  '/docs/../index.html',
  '/%2e%2e/index.html',
  '/%2E%2E/%2E%2E/package.json',
  '/.%2e/.%2e/package.json',
  '/..%2F..%2Fpackage.json',
  '/..%2f{other}%2fsecret.txt',
  '/../{other}/secret.txt',
  '/../../site/{other}/secret.txt',
  '//etc/passwd',
  '/docs//index.html',
  '/%2F%2Fetc%2Fpasswd',
  '/..%5C..%5Cpackage.json',
  '/docs%5Cindex.html',
  '/index.html%00.png',
  '/a%0d%0aSet-Cookie:%20x=1',
  '/%1b[31m',
  '/%C0%AE%C0%AE/package.json',
  '/%ED%A0%80',
  '/%FF',
  '/%',
  '/%zz',
  `/${'a'.repeat(1025)}`,
  `/${'%E2%9C%93'.repeat(342)}`,
];

describe('hostile site paths (gateway process)', () => {
  let gw: SiteGateway;
  let site: PublishedSite;
  let other: PublishedSite;

  beforeAll(async () => {
    gw = await startSiteGateway();
    [site, other] = await Promise.all([
      publishSite(gw, { 'index.html': '<h1>site</h1>', 'docs/index.html': 'docs' }),
      publishSite(gw, { 'index.html': 'other', 'secret.txt': SECRET }),
    ]);
  });

  afterAll(async () => {
    site?.remove();
    other?.remove();
    expect(await gw?.stop()).toBe(0);
  });

  it('the other tape serves its secret on its own URL (the control)', async () => {
    expect((await siteGet(gw.url, `/site/${other.tape}/secret.txt`)).text).toBe(SECRET);
  });

  const cases = HOSTILE.map((path) => [
    path.length > 60 ? `${path.slice(0, 24)}… (${path.length} chars)` : path,
    path,
  ]);

  it.each(cases)('refuses %s on both routes with 400', async (_name, template) => {
    const path = template.replace('{other}', other.tape);
    const viaPath = await rawGet(gw.url, `/site/${site.tape}${path}`);
    const viaHost = await rawGet(gw.url, path, `${site.label}.localhost:${gw.port}`);
    for (const res of [viaPath, viaHost]) {
      expect(res.status).toBe(400);
      expect(res.text).not.toContain(SECRET);
      expect(res.text).not.toContain(GATEWAY_FILE_MARKER);
      expect(res.text).not.toContain('root:');
      expect(res.text).not.toMatch(/set-cookie/i);
    }
  });

  it('refuses a Host header that carries a path', async () => {
    const res = await rawGet(
      gw.url,
      '/secret.txt',
      `${site.label}.localhost/../${other.label}.localhost`,
    );
    expect([400, 404]).toContain(res.status);
    expect(res.text).not.toContain(SECRET);
  });

  it('answers a 1024-byte name as a plain miss, not an error', async () => {
    const res = await siteGet(gw.url, `/site/${site.tape}/${'a'.repeat(1024)}`);
    expect(res.status).toBe(404);
  });
});
