import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BrowserContext, Page } from 'playwright-core';
import { HeadlessChromium, launchChromium } from './support/clients/browser';
import { freePort } from './support/processes/free-port';
import { SiteGateway, startSiteGateway } from './support/processes/site-gateway';
import { siteGet } from './support/clients/site-http';
import { publishSite, PublishedSite } from './support/labs/site-publish';

/**
 * Tenant isolation in a real headless Chromium (issue 15, finding 5): one tenant's script must
 * never read another tenant's storage or cookies, nor reach into a frame of its pages, on any
 * route. Sites served by path (`/site/{tape}/…`) and objects (`/object/{track}`) share the
 * gateway's origin; sites served by hostname (`<label>.localhost`) have their own.
 *
 * Each tape holds the same probe (as a site page with an external script, and as an HTML object
 * with an inline script). `#plant=<secret>` stores the secret in localStorage and a cookie;
 * `#frame=<url>` reads this document's storage and cookies, frames the URL and tries to read the
 * frame's document and storage. The probe writes what it saw into `#out`.
 */
jest.setTimeout(300_000);

const PROBE_JS = `(function () {
  var out = {};
  var params = new URLSearchParams(location.hash.slice(1));
  function done() { document.getElementById('out').textContent = JSON.stringify(out); }
  out.origin = String(self.origin);
  try { out.stored = localStorage.getItem('secret'); } catch (e) { out.stored = 'error ' + e.name; }
  try { out.cookie = document.cookie; } catch (e) { out.cookie = 'error ' + e.name; }
  var secret = params.get('plant');
  if (secret) {
    try { localStorage.setItem('secret', secret); out.planted = 'ok'; } catch (e) { out.planted = 'error ' + e.name; }
    try { document.cookie = 'secret=' + secret + '; path=/'; out.cookiePlanted = document.cookie; } catch (e) { out.cookiePlanted = 'error ' + e.name; }
  }
  var target = params.get('frame');
  if (!target) return done();
  var frame = document.createElement('iframe');
  frame.onload = function () {
    try { out.frameText = frame.contentDocument ? frame.contentDocument.body.textContent : 'no document'; } catch (e) { out.frameText = 'error ' + e.name; }
    try { out.frameStorage = frame.contentWindow.localStorage.getItem('secret'); } catch (e) { out.frameStorage = 'error ' + e.name; }
    done();
  };
  frame.src = target;
  document.body.appendChild(frame);
})();
`;

const SITE_PAGE = `<!doctype html><html><head><meta charset="utf-8"><title>probe</title></head>
<body><pre id="out"></pre><script src="probe.js"></script></body></html>
`;

/** The same probe inline: the object route serves bytes as they are, with no site CSP. */
const OBJECT_PAGE = `<!doctype html><html><head><meta charset="utf-8"><title>probe object</title></head>
<body><pre id="out"></pre><script>${PROBE_JS}</script></body></html>
`;

const SVG_OBJECT = `<svg xmlns="http://www.w3.org/2000/svg"><text id="out" y="20"></text>
<script>document.getElementById('out').textContent = 'svg script ran on ' + self.origin;</script></svg>
`;

const FILES = {
  'index.html': SITE_PAGE,
  'probe.js': PROBE_JS,
  'probe.html': OBJECT_PAGE,
  'probe.svg': SVG_OBJECT,
  'docs/index.html': SITE_PAGE,
};

/** What the probe reported; '' when its script never ran (a sandbox without scripts). */
async function probeOutput(page: Page, url: string): Promise<string> {
  // From a blank page: a URL differing only in its fragment would be no new load.
  await page.goto('about:blank');
  const response = await page.goto(url);
  expect({ url, status: response?.status() }).toEqual({ url, status: 200 });
  // The probe reports within a few hundred ms (the frame's load included); a document whose
  // scripts may not run never does, so wait a bounded time rather than for the text.
  try {
    await page.waitForFunction(
      () =>
        (
          (
            globalThis as unknown as { document: { getElementById(id: string): unknown } }
          ).document.getElementById('out') as { textContent: string | null } | null
        )?.textContent !== '',
      undefined,
      { timeout: 3000 },
    );
  } catch {
    // nothing reported
  }
  // The probe's element is there whether or not its script ran.
  const out = await page.textContent('#out', { timeout: 2000 });
  expect({ url, out }).toEqual({ url, out: expect.any(String) });
  return out ?? '';
}

interface Probe {
  origin?: string;
  stored?: string | null;
  cookie?: string;
  planted?: string;
  cookiePlanted?: string;
  frameText?: string;
  frameStorage?: string | null;
}

function parsed(text: string): Probe {
  return text === '' ? {} : (JSON.parse(text) as Probe);
}

/** What is stored for `origin` in the browser: what any script on that origin could read. */
async function storedFor(context: BrowserContext, origin: string): Promise<string> {
  const state = await context.storageState();
  const local = state.origins.find((o) => o.origin === origin)?.localStorage ?? [];
  const host = new URL(origin).hostname;
  const cookies = state.cookies.filter((c) => c.domain.replace(/^\./, '') === host);
  return JSON.stringify({ local, cookies });
}

describe('tenant isolation in headless Chromium', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'browser-isolation-'));
  let chromium: HeadlessChromium;
  let gw: SiteGateway;
  let redirecting: SiteGateway;
  let a: PublishedSite;
  let b: PublishedSite;
  const tracks: Record<'a' | 'b', Record<string, string>> = { a: {}, b: {} };

  beforeAll(async () => {
    chromium = await launchChromium();
    gw = await startSiteGateway({ dataDir });
    [a, b] = await Promise.all([publishSite(gw, FILES), publishSite(gw, FILES)]);
    for (const [key, site] of [
      ['a', a],
      ['b', b],
    ] as const) {
      const listed = await gw.tape(['object', 'ls', '--json'], site.configDir);
      for (const o of JSON.parse(listed.stdout) as { name: string; track: string }[]) {
        tracks[key][o.name] = o.track;
      }
    }
    // A reader gateway on the same chain and track store whose path routes redirect to each
    // site's own origin; its suffix names its own port so the redirect lands on it.
    const port = await freePort();
    redirecting = await startSiteGateway({
      port,
      dataDir,
      rpcUrl: gw.rpcUrl,
      site: { subdomain_suffix: `localhost:${port}`, path_isolation: 'redirect' },
    });
  });

  afterAll(async () => {
    await chromium?.close();
    await redirecting?.stop();
    a?.remove();
    b?.remove();
    expect(await gw?.stop()).toBe(0);
    rmSync(dataDir, { recursive: true, force: true });
  });

  const shared = () => `http://127.0.0.1:${gw.port}`;
  const sub = (site: PublishedSite, g = gw) => `http://${site.label}.localhost:${g.port}`;

  it('keeps /site/A, /site/B, /object/A and /object/B apart on the shared origin (sandbox)', async () => {
    const context = await chromium.context();
    try {
      const page = await context.newPage();
      const routesOfA = {
        site: `${shared()}/site/${a.tape}/`,
        object: `${shared()}/object/${tracks.a['probe.html']}`,
      };
      // Tape A stores a secret on each shared-origin route.
      const planted = {
        site: parsed(await probeOutput(page, `${routesOfA.site}#plant=secret-a-site`)),
        object: parsed(await probeOutput(page, `${routesOfA.object}#plant=secret-a-object`)),
      };
      // Tape B, on each shared-origin route, tries to read it directly and through a frame.
      const attempts: { from: 'site' | 'object'; target: string; seen: string }[] = [];
      for (const [from, url] of [
        ['site', `${shared()}/site/${b.tape}/`],
        ['object', `${shared()}/object/${tracks.b['probe.html']}`],
      ] as const) {
        for (const target of Object.values(routesOfA)) {
          const seen = await probeOutput(page, `${url}#frame=${encodeURIComponent(target)}`);
          attempts.push({ from, target, seen });
        }
      }
      for (const { from, target, seen } of attempts) {
        expect(`${from} framing ${target}: ${seen}`).not.toMatch(/secret-a/);
      }
      // Nothing is stored on the shared origin for any script there to read.
      expect(await storedFor(context, shared())).not.toMatch(/secret-a/);

      // Why: the site documents run in an opaque origin (no storage, no cookies), and the
      // object route runs no script at all.
      expect(planted.site.origin).toBe('null');
      expect(planted.site.planted).toBe('error SecurityError');
      expect(planted.site.cookiePlanted).toBe('error SecurityError');
      expect(planted.object).toEqual({});
      for (const { from, seen } of attempts) {
        const probe = parsed(seen);
        if (from === 'object') {
          expect(probe).toEqual({});
          continue;
        }
        // B's script ran, in an origin of its own, and could not reach into A's frame.
        expect(probe.origin).toBe('null');
        expect(probe.stored).toBe('error SecurityError');
        expect(probe.frameText).toMatch(/^(no document|error )/);
        expect(probe.frameStorage).toMatch(/^error /);
      }
    } finally {
      await context.close();
    }
  });

  it('runs no script of an SVG object on the shared origin', async () => {
    const context = await chromium.context();
    try {
      const page = await context.newPage();
      await page.goto(`${shared()}/object/${tracks.a['probe.svg']}`);
      await page.waitForTimeout(300);
      expect(await page.textContent('#out')).toBe('');
    } finally {
      await context.close();
    }
  });

  it('keeps subdomain A and subdomain B apart (their own origins, not sandboxed)', async () => {
    const context = await chromium.context();
    try {
      const page = await context.newPage();
      const planted = parsed(await probeOutput(page, `${sub(a)}/#plant=secret-a-host`));
      // A hostname-served site is its own origin and keeps its storage.
      expect(planted.origin).toBe(sub(a));
      expect(planted.planted).toBe('ok');
      expect(planted.cookiePlanted).toContain('secret=secret-a-host');
      expect(await storedFor(context, sub(a))).toMatch(/secret-a-host/);

      const seen = await probeOutput(page, `${sub(b)}/#frame=${encodeURIComponent(`${sub(a)}/`)}`);
      expect(seen).not.toMatch(/secret-a/);
      const probe = parsed(seen);
      expect(probe.origin).toBe(sub(b));
      expect(probe.stored).toBeNull();
      expect(probe.cookie).toBe('');
      expect(probe.frameText).toMatch(/^(no document|error )/);
      expect(probe.frameStorage).toMatch(/^error /);
    } finally {
      await context.close();
    }
  });

  it('redirects path routes to the site origin when path_isolation is redirect', async () => {
    const path = await siteGet(redirecting.url, `/site/${a.tape}/docs/?q=1&r=2`);
    expect(path.status).toBe(308);
    expect(path.headers.location).toBe(`${sub(a, redirecting)}/docs/?q=1&r=2`);
    const root = await siteGet(redirecting.url, `/site/${a.tape}?q=1`);
    expect(root.status).toBe(308);
    expect(root.headers.location).toBe(`${sub(a, redirecting)}/?q=1`);

    const context = await chromium.context();
    try {
      const page = await context.newPage();
      const planted = parsed(
        await probeOutput(page, `${redirecting.url}/site/${a.tape}/#plant=secret-a-redirect`),
      );
      expect(page.url()).toBe(`${sub(a, redirecting)}/#plant=secret-a-redirect`);
      expect(planted.planted).toBe('ok');

      const frame = encodeURIComponent(`${redirecting.url}/site/${a.tape}/`);
      const seen = await probeOutput(page, `${redirecting.url}/site/${b.tape}/#frame=${frame}`);
      expect(seen).not.toMatch(/secret-a/);
      const probe = parsed(seen);
      expect(probe.origin).toBe(sub(b, redirecting));
      expect(probe.stored).toBeNull();
      expect(probe.frameText).toMatch(/^(no document|error )/);
    } finally {
      await context.close();
    }
  });

  it('sends nosniff and a sandbox on every answer of the shared origin that a browser renders', async () => {
    const checks: [string, string][] = [
      ['object html', `/object/${tracks.a['probe.html']}`],
      ['object svg', `/object/${tracks.a['probe.svg']}`],
      ['object js', `/object/${tracks.a['probe.js']}`],
      ['site page', `/site/${a.tape}/`],
      ['site script', `/site/${a.tape}/probe.js`],
      ['site redirect', `/site/${a.tape}/docs`],
    ];
    for (const [name, path] of checks) {
      const res = await siteGet(gw.url, path);
      expect({ name, nosniff: res.headers['x-content-type-options'] }).toEqual({
        name,
        nosniff: 'nosniff',
      });
      expect({ name, csp: res.headers['content-security-policy'] }).toEqual({
        name,
        csp: expect.stringMatching(/(^|, )sandbox( |$|;)/),
      });
      expect(res.headers['content-security-policy']).not.toMatch(/allow-same-origin/);
    }
    // The gateway's own answers on that origin: JSON, never sniffed into a page.
    for (const path of ['/healthz', '/upload/config', '/no-such-route', '/object/not-a-track']) {
      const res = await siteGet(gw.url, path);
      expect({ path, type: res.headers['content-type'] }).toEqual({
        path,
        type: expect.stringMatching(/^application\/json/),
      });
      expect({ path, nosniff: res.headers['x-content-type-options'] }).toEqual({
        path,
        nosniff: 'nosniff',
      });
    }
    const object = await siteGet(gw.url, `/object/${tracks.a['probe.html']}`);
    expect(object.headers['cross-origin-resource-policy']).toBe('cross-origin');
    // Hostname-served sites are their own origin: no sandbox there.
    const host = await siteGet(gw.url, '/', { host: `${a.label}.localhost:${gw.port}` });
    expect(host.status).toBe(200);
    expect(host.headers['content-security-policy']).not.toMatch(/sandbox/);
  });
});
