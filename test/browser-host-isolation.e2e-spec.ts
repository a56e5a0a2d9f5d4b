import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';
import { HeadlessChromium, launchChromium } from './support/clients/browser';
import { CaddyProcess, startCaddyFor } from './support/processes/caddy';
import { CliUser, keyValues } from './support/clients/cli';
import { removeSite, writeSite } from './support/fixtures/site-dir';
import { freePort } from './support/processes/free-port';
import { GatewayProcess, startGateway } from './support/processes/gateway';
import { runTenantProbe, TENANT_FILES } from './support/fixtures/tenant-probe';

/**
 * Issue 34, finding 8: hostname isolation in a real browser, on a suffix that is not
 * `localhost` (Chromium refuses `Domain=localhost` cookies, which hid cookie tossing). Two tenant
 * sites are served as `<label>.example.test` (the gateway's `subdomain_suffix`, with Caddy's
 * port) and as operator domains `www.tenant-a.net` / `www.tenant-b.net`, over HTTPS through
 * Caddy running deploy/Caddyfile; Chromium maps the names to loopback with
 * `--host-resolver-rules` and trusts Caddy's CA, as a visitor trusts a public CA.
 *
 * What holds: storage, IndexedDB and service workers are per origin; the gateway sets no
 * cookies. What does not, and the gateway cannot enforce: a cookie site A sets with
 * `Domain=example.test` reaches site B (example.test is no public suffix to the browser). With
 * one registrable domain per tenant the browser refuses it.
 */
jest.setTimeout(300_000);

const SUFFIX = 'example.test';
const DOMAIN_A = 'www.tenant-a.net';
const DOMAIN_B = 'www.tenant-b.net';

describe('hostname isolation in headless Chromium on a shared suffix (issue 34, finding 8)', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'browser-host-isolation-'));
  let siteDir: string;
  let user: CliUser;
  let gw: GatewayProcess;
  let caddy: CaddyProcess;
  let chromium: HeadlessChromium;
  let httpsPort: number;
  const labels: Record<'a' | 'b', string> = { a: '', b: '' };
  /** Every Set-Cookie header any answer carried, gateway or Caddy (read once all are in). */
  const setCookieReads: Promise<string | null>[] = [];
  const setCookies = async () => (await Promise.all(setCookieReads)).filter((v) => v !== null);

  const sub = (key: 'a' | 'b') => `https://${labels[key]}.${SUFFIX}:${httpsPort}`;
  const domain = (name: string) => `https://${name}:${httpsPort}`;

  beforeAll(async () => {
    // Publish two tenants' sites, then serve them under the suffix and as operator domains.
    const plain = await startGateway({ dataDir });
    user = new CliUser(plain);
    await user.fundedWallet();
    siteDir = writeSite(TENANT_FILES);
    const tapes: Record<'a' | 'b', string> = { a: '', b: '' };
    for (const key of ['a', 'b'] as const) {
      const created = keyValues(await user.ok(['create', '--capacity', '1m', '--epochs', '50']));
      tapes[key] = created['tape address'];
      labels[key] = created.label;
      await user.ok(['deploy', `${siteDir}/index.html`]);
    }
    await plain.stop('SIGTERM');

    httpsPort = await freePort();
    gw = await startGateway({
      dataDir,
      config: {
        gateway: {
          site: {
            subdomain_suffix: `${SUFFIX}:${httpsPort}`,
            domains: { [DOMAIN_A]: tapes.a, [DOMAIN_B]: tapes.b },
          },
          metering: { trusted_proxies: ['127.0.0.1/32'] },
        },
      },
    });
    caddy = await startCaddyFor(gw, { siteSuffix: SUFFIX, httpsPort });
    chromium = await launchChromium({
      args: [
        `--host-resolver-rules=MAP *.${SUFFIX} 127.0.0.1, MAP *.tenant-a.net 127.0.0.1, MAP *.tenant-b.net 127.0.0.1`,
      ],
      trustedRootCa: caddy.rootCa(),
    });
  });

  afterAll(async () => {
    await chromium?.close();
    await caddy?.stop();
    await gw?.stop();
    user?.cleanup();
    if (siteDir) removeSite(siteDir);
    rmSync(dataDir, { recursive: true, force: true });
  });

  /**
   * Runs `body` with a page of a fresh browser context (its own cookie jar and storage), which
   * records every Set-Cookie it receives; the context is closed afterwards.
   */
  async function withPage(body: (page: Page, context: BrowserContext) => Promise<void>) {
    const context = await chromium.context();
    context.on('response', (response) => {
      setCookieReads.push(
        response
          .headerValue('set-cookie')
          .then((v) => (v === null ? null : `${response.url()}: ${v}`)),
      );
    });
    try {
      await body(await context.newPage(), context);
    } finally {
      await context.close();
    }
  }

  it('keeps localStorage and IndexedDB per site', () =>
    withPage(async (page) => {
      const planted = await runTenantProbe(page, `${sub('a')}/#plant=secret-a-storage`);
      expect(planted).toMatchObject({
        origin: sub('a'),
        idbPlanted: 'ok',
        stored: 'secret-a-storage',
        idb: 'secret-a-storage',
      });
      const seen = await runTenantProbe(page, `${sub('b')}/`);
      expect(seen).toMatchObject({ origin: sub('b'), stored: null, idb: null });
      expect(JSON.stringify(seen)).not.toMatch(/secret-a/);
      // Still there for A itself.
      expect(await runTenantProbe(page, `${sub('a')}/`)).toMatchObject({
        stored: 'secret-a-storage',
        idb: 'secret-a-storage',
      });
    }));

  it('lets a site’s service worker control only that site', () =>
    withPage(async (page) => {
      const planted = await runTenantProbe(page, `${sub('a')}/#plant=secret-a-sw`);
      expect(planted.swScope).toBe(`${sub('a')}/`);
      // It works: A's worker answers A's /controlled itself.
      await page.goto(`${sub('a')}/controlled`);
      expect(await page.textContent('body')).toBe(
        `controlled by the service worker of ${sub('a')}`,
      );
      // B's pages are not under it: B's /controlled is the gateway's 404, B has no controller.
      const other = await page.goto(`${sub('b')}/controlled`);
      expect(other?.status()).toBe(404);
      expect(await page.textContent('body')).not.toMatch(/service worker/);
      const seen = await runTenantProbe(
        page,
        `${sub('b')}/#hijack=${encodeURIComponent(sub('a'))}`,
      );
      expect(seen).toMatchObject({
        controller: null,
        registrations: [],
        hijack: 'error SecurityError',
      });
    }));

  it('sets no cookies: every cookie in the jar was set by a tenant script', () =>
    withPage(async (page, context) => {
      await runTenantProbe(page, `${sub('a')}/`);
      await runTenantProbe(page, `${domain(DOMAIN_A)}/`);
      expect(await context.cookies()).toEqual([]);
      expect(await setCookies()).toEqual([]);
    }));

  it('does NOT stop cookie tossing under a shared suffix: A’s Domain=example.test cookie reaches B', () =>
    withPage(async (page) => {
      const sentToB: Promise<string | null>[] = [];
      page.on('request', (request) => {
        if (request.url().startsWith(sub('b'))) sentToB.push(request.headerValue('cookie'));
      });
      const planted = await runTenantProbe(page, `${sub('a')}/#plant=secret-a&toss=${SUFFIX}`);
      // The browser takes it (example.test is no public suffix); only the __Host- prefix, which
      // forbids a Domain attribute, is refused.
      expect(planted.cookie).toBe(`secret=secret-a; tossed-${SUFFIX}=secret-a`);
      const seen = await runTenantProbe(page, `${sub('b')}/`);
      // A's host-only cookie stays on A; the tossed one is B's to read (and it goes with every
      // request to B, where B's scripts cannot tell it from one of their own).
      expect(seen.cookie).not.toMatch(/(^|; )secret=/);
      expect(seen.cookie).toBe(`tossed-${SUFFIX}=secret-a`);
      expect(await Promise.all(sentToB)).toContain(`tossed-${SUFFIX}=secret-a`);
      // The gateway itself still set nothing.
      expect(await setCookies()).toEqual([]);
    }));

  it('with a registrable domain per tenant, the browser refuses the tossed cookie', () =>
    withPage(async (page, context) => {
      const planted = await runTenantProbe(
        page,
        `${domain(DOMAIN_A)}/#plant=secret-a&toss=net,${DOMAIN_B},tenant-b.net`,
      );
      expect(planted.cookie).toBe('secret=secret-a');
      const seen = await runTenantProbe(page, `${domain(DOMAIN_B)}/`);
      expect(seen).toMatchObject({ origin: domain(DOMAIN_B), cookie: '', stored: null, idb: null });
      expect((await context.cookies()).map((c) => `${c.name}@${c.domain}`)).toEqual([
        `secret@${DOMAIN_A}`,
      ]);
    }));
});
