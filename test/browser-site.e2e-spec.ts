import { Page } from 'playwright-core';
import { HeadlessChromium, launchChromium } from './support/clients/browser';
import { startSiteGateway, SiteGateway } from './support/processes/site-gateway';
import { openApi, OriginServer, startOriginServer } from './support/fakes/site-origin-server';
import { publishSite, PublishedSite } from './support/labs/site-publish';

/**
 * Sites in a real headless Chromium (Debian `chromium` via playwright-core), served by a
 * gateway process on `http://<label>.localhost:<port>/` (Chromium resolves *.localhost to
 * loopback): client-side routing of a single-page app, the CSP's connect-src, and CORS.
 */
jest.setTimeout(300_000);

const INDEX = `<!doctype html>
<html><head><meta charset="utf-8"><title>spa</title>
<link rel="stylesheet" href="/app.css"><script src="/app.js" defer></script></head>
<body><nav><a href="/" data-route id="home-link">home</a> <a href="/users/42" data-route id="user-link">user</a></nav>
<main id="view">loading</main></body></html>
`;

const APP_JS = `
function render() {
  var path = location.pathname;
  var user = /^\\/users\\/(\\d+)$/.exec(path);
  var text = path === '/' ? 'home page' : user ? 'user ' + user[1] : 'unknown route ' + path;
  document.getElementById('view').textContent = text;
}
document.addEventListener('click', function (event) {
  var link = event.target.closest('a[data-route]');
  if (!link) return;
  event.preventDefault();
  history.pushState({}, '', link.getAttribute('href'));
  render();
});
window.addEventListener('popstate', render);
render();
`;

const CSP_HTML = `<!doctype html>
<html><head><meta charset="utf-8"><title>csp</title><script src="/csp.js" defer></script></head>
<body><pre id="out"></pre><script>window.inlineRan = true;</script></body></html>
`;

/** Fetches the two URLs given in the query and reports what happened, CSP violations included. */
const CSP_JS = `
var params = new URLSearchParams(location.search);
var results = {};
var violations = [];
document.addEventListener('securitypolicyviolation', function (e) {
  violations.push(e.effectiveDirective + ' ' + e.blockedURI);
});
function attempt(name, url) {
  return fetch(url).then(
    function (r) { return r.text().then(function (t) { results[name] = 'ok ' + t; }); },
    function (e) { results[name] = 'failed ' + e.name; }
  );
}
Promise.all([attempt('allowed', params.get('allowed')), attempt('blocked', params.get('blocked'))])
  .then(function () { setTimeout(function () {
    document.getElementById('out').textContent = JSON.stringify({ results: results, violations: violations });
  }, 200); });
`;

/** A page of another origin that tries to read the URLs given in the query (no CSP of its own). */
const READER_HTML = `<!doctype html>
<html><head><meta charset="utf-8"><title>reader</title></head><body><pre id="out"></pre>
<script>
var targets = JSON.parse(new URLSearchParams(location.search).get('targets'));
var results = {};
Promise.all(Object.keys(targets).map(function (name) {
  return fetch(targets[name]).then(
    function (r) { return r.text().then(function (t) { results[name] = 'read ' + t; }); },
    function (e) { results[name] = 'failed ' + e.name; }
  );
})).then(function () { document.getElementById('out').textContent = JSON.stringify(results); });
</script></body></html>
`;

/**
 * What the page functions below use of the page's globals (this project compiles without DOM
 * types). Functions, not strings: evaluating strings is `eval`, which the site's CSP forbids.
 */
interface PageGlobals {
  document: {
    getElementById(id: string): { textContent: string | null } | null;
    querySelector(selector: string): unknown;
  };
  getComputedStyle(element: unknown): { fontWeight: string };
  marker?: string;
  inlineRan?: boolean;
}

async function viewShows(page: Page, text: string): Promise<void> {
  await page.waitForFunction(
    (expected) =>
      (globalThis as unknown as PageGlobals).document.getElementById('view')?.textContent ===
      expected,
    text,
  );
}

async function outputOf(page: Page): Promise<Record<string, unknown>> {
  await page.waitForFunction(
    () =>
      ((globalThis as unknown as PageGlobals).document.getElementById('out')?.textContent ?? '') !==
      '',
  );
  return JSON.parse((await page.textContent('#out')) ?? '{}') as Record<string, unknown>;
}

describe('sites in headless Chromium', () => {
  let gw: SiteGateway;
  let chromium: HeadlessChromium;
  let api: OriginServer;
  let elsewhere: OriginServer;
  let reader: OriginServer;
  let app: PublishedSite;
  let closed: PublishedSite;

  beforeAll(async () => {
    // One at a time, so that afterAll stops whatever did start when a later step fails.
    chromium = await launchChromium();
    gw = await startSiteGateway();
    api = await startOriginServer(openApi('{"from":"allowed api"}'));
    elsewhere = await startOriginServer(openApi('{"from":"elsewhere"}'));
    reader = await startOriginServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      res.end(READER_HTML);
    });
    [app, closed] = await Promise.all([
      publishSite(gw, {
        'index.html': INDEX,
        'app.js': APP_JS,
        'app.css': 'main { font-weight: bold; }\n',
        'csp.html': CSP_HTML,
        'csp.js': CSP_JS,
        'data.json': '{"secret":"open site data"}',
        '_site.json': JSON.stringify({
          spa_fallback: true,
          connect_origins: [api.origin],
          cors_origins: [reader.origin],
        }),
      }),
      publishSite(gw, {
        'index.html': '<h1>closed</h1>',
        'data.json': '{"secret":"closed site data"}',
      }),
    ]);
  });

  afterAll(async () => {
    await chromium?.close();
    await Promise.all([api?.close(), elsewhere?.close(), reader?.close()]);
    app?.remove();
    closed?.remove();
    expect(await gw?.stop()).toBe(0);
  });

  const siteUrl = (site: PublishedSite, path = '/') =>
    `http://${site.label}.localhost:${gw.port}${path}`;

  it('routes a single-page app on the client and survives a reload on a deep link', async () => {
    const context = await chromium.context();
    try {
      const page = await context.newPage();
      const first = await page.goto(siteUrl(app));
      expect(first?.status()).toBe(200);
      await viewShows(page, 'home page');
      await page.evaluate(() => {
        (globalThis as unknown as PageGlobals).marker = 'same document';
      });

      await page.click('#user-link');
      await viewShows(page, 'user 42');
      expect(new URL(page.url()).pathname).toBe('/users/42');
      // pushState: still the same document, nothing was loaded from the gateway.
      expect(await page.evaluate(() => (globalThis as unknown as PageGlobals).marker)).toBe(
        'same document',
      );

      const reloaded = await page.reload();
      expect(reloaded?.status()).toBe(200);
      await viewShows(page, 'user 42');
      expect(
        await page.evaluate(() => (globalThis as unknown as PageGlobals).marker),
      ).toBeUndefined();
      expect(
        await page.evaluate(() => {
          const g = globalThis as unknown as PageGlobals;
          return g.getComputedStyle(g.document.querySelector('main')).fontWeight;
        }),
      ).toBe('700');

      await page.goBack();
      await viewShows(page, 'home page');

      const deep = await context.newPage();
      const direct = await deep.goto(siteUrl(app, '/users/7'));
      expect(direct?.status()).toBe(200);
      await viewShows(deep, 'user 7');
    } finally {
      await context.close();
    }
  });

  it('lets fetch() reach an origin in connect_origins and blocks one outside it with the CSP', async () => {
    const context = await chromium.context();
    try {
      const page = await context.newPage();
      const query = new URLSearchParams({
        allowed: `${api.origin}/data`,
        blocked: `${elsewhere.origin}/data`,
      });
      await page.goto(siteUrl(app, `/csp.html?${query.toString()}`));
      const out = (await outputOf(page)) as {
        results: Record<string, string>;
        violations: string[];
      };
      expect(out.results.allowed).toBe('ok {"from":"allowed api"}');
      expect(out.results.blocked).toBe('failed TypeError');
      expect(out.violations).toContain(`connect-src ${elsewhere.origin}/data`);
      expect(elsewhere.requests).toEqual([]);
      expect(api.requests).toEqual(['/data']);
      // script-src 'self': the inline script of the page did not run.
      expect(
        await page.evaluate(() => (globalThis as unknown as PageGlobals).inlineRan),
      ).toBeUndefined();
    } finally {
      await context.close();
    }
  });

  it('lets another origin read a site only when that origin is in cors_origins', async () => {
    const context = await chromium.context();
    try {
      const page = await context.newPage();
      const targets = JSON.stringify({
        open: siteUrl(app, '/data.json'),
        closed: siteUrl(closed, '/data.json'),
      });
      await page.goto(`${reader.origin}/?targets=${encodeURIComponent(targets)}`);
      const out = (await outputOf(page)) as Record<string, string>;
      expect(out.open).toBe('read {"secret":"open site data"}');
      expect(out.closed).toBe('failed TypeError');
    } finally {
      await context.close();
    }
  });
});
