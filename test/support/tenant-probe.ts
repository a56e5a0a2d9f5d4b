import type { Page } from 'playwright-core';

/**
 * A tenant page for browser isolation tests on hostname routes (its own origin, the site CSP:
 * scripts from itself only, so the probe is a file). Its hash says what to do:
 * - `plant=<secret>`: keep the secret in localStorage, IndexedDB and a host-only cookie, and
 *   register `/sw.js` for the whole site;
 * - `toss=<domain>[,<domain>…]`: with `plant`, also set `tossed-<domain>=<secret>` cookies with
 *   those `Domain` attributes (cookie tossing: what a site may leave for its neighbours), and the
 *   same as `__Host-tossed-<domain>` (a prefix browsers refuse with any `Domain`);
 * - `hijack=<origin>`: try to register that origin's `/sw.js` for that origin.
 * Then it reports what this origin can read: storage, IndexedDB, cookies, its controller and
 * service worker registrations, as JSON in `#out`.
 */
export const TENANT_PROBE_JS = `(async function () {
  var out = { origin: self.origin };
  var params = new URLSearchParams(location.hash.slice(1));
  function idb(value) {
    return new Promise(function (resolve) {
      var open = indexedDB.open('tenant', 1);
      open.onupgradeneeded = function () { open.result.createObjectStore('kv'); };
      open.onerror = function () { resolve('error ' + (open.error && open.error.name)); };
      open.onsuccess = function () {
        var db = open.result;
        var tx = db.transaction('kv', value === undefined ? 'readonly' : 'readwrite');
        var req = value === undefined ? tx.objectStore('kv').get('secret') : tx.objectStore('kv').put(value, 'secret');
        tx.oncomplete = function () { db.close(); resolve(value === undefined ? (req.result === undefined ? null : req.result) : 'ok'); };
        tx.onerror = function () { db.close(); resolve('error ' + (tx.error && tx.error.name)); };
      };
    });
  }
  try {
    var secret = params.get('plant');
    if (secret) {
      localStorage.setItem('secret', secret);
      out.idbPlanted = await idb(secret);
      document.cookie = 'secret=' + secret + '; Path=/; Secure; SameSite=Lax';
      (params.get('toss') || '').split(',').filter(Boolean).forEach(function (domain) {
        document.cookie = 'tossed-' + domain + '=' + secret + '; Domain=' + domain + '; Path=/; Secure; SameSite=Lax';
        document.cookie = '__Host-tossed-' + domain + '=' + secret + '; Domain=' + domain + '; Path=/; Secure; SameSite=Lax';
      });
      out.swScope = (await navigator.serviceWorker.register('/sw.js', { scope: '/' })).scope;
      await navigator.serviceWorker.ready;
    }
    var hijack = params.get('hijack');
    if (hijack) {
      try {
        await navigator.serviceWorker.register(hijack + '/sw.js', { scope: hijack + '/' });
        out.hijack = 'registered';
      } catch (e) { out.hijack = 'error ' + e.name; }
    }
    out.stored = localStorage.getItem('secret');
    out.idb = await idb();
    out.cookie = document.cookie;
    out.controller = navigator.serviceWorker.controller ? navigator.serviceWorker.controller.scriptURL : null;
    out.registrations = (await navigator.serviceWorker.getRegistrations()).map(function (r) { return r.scope; });
  } catch (e) { out.error = e.name + ': ' + e.message; }
  document.getElementById('out').textContent = JSON.stringify(out);
})();
`;

/** The tenant's service worker: it answers `/controlled` itself, so a test sees what it controls. */
export const TENANT_SW_JS = `self.addEventListener('install', function () { self.skipWaiting(); });
self.addEventListener('activate', function (e) { e.waitUntil(self.clients.claim()); });
self.addEventListener('fetch', function (e) {
  if (new URL(e.request.url).pathname === '/controlled') {
    e.respondWith(new Response('controlled by the service worker of ' + self.location.origin,
      { headers: { 'content-type': 'text/plain' } }));
  }
});
`;

export const TENANT_FILES = {
  'index.html': `<!doctype html><html><head><meta charset="utf-8"><title>tenant</title></head>
<body><pre id="out"></pre><script src="/probe.js"></script></body></html>
`,
  'probe.js': TENANT_PROBE_JS,
  'sw.js': TENANT_SW_JS,
};

export interface TenantReport {
  origin: string;
  idbPlanted?: string;
  swScope?: string;
  hijack?: string;
  stored: string | null;
  idb: string | null;
  cookie: string;
  controller: string | null;
  registrations: string[];
  error?: string;
}

/** Opens the probe at `url` (a fresh load, from a blank page) and returns its report. */
export async function runTenantProbe(page: Page, url: string): Promise<TenantReport> {
  await page.goto('about:blank');
  const response = await page.goto(url);
  if (response?.status() !== 200) throw new Error(`${url}: status ${response?.status()}`);
  const out = page.locator('#out');
  await out.filter({ hasText: /\S/ }).waitFor({ timeout: 30_000 });
  return JSON.parse((await out.textContent()) ?? '') as TenantReport;
}
