import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Page } from 'playwright-core';
import { HeadlessChromium, launchChromium } from './support/clients/browser';
import { SiteGateway, startSiteGateway } from './support/processes/site-gateway';
import { OriginServer, startOriginServer } from './support/fakes/site-origin-server';
import { siteGet } from './support/clients/site-http';
import { SiteFiles } from './support/labs/site-publish';
import { UploadClient } from './support/clients/upload-client';

/**
 * A site built here by a real static-site generator from the npm registry (VitePress 1.6.4,
 * installed into a temporary directory and built by this test: docs/site.md, "Rules", says why
 * this one), deployed with `tape deploy` and opened in headless Chromium on its hostname:
 *
 * - without `_headers`, the gateway's built-in policy blocks its inline scripts (VitePress puts
 *   its site data and theme checks inline) and the web font of another origin its stylesheet
 *   names, and `tape deploy` warns about each, naming the `_headers` line that allows it;
 * - with the `_headers` those warnings give, it hydrates, runs them and loads the font; its
 *   `_redirects` sends an old path to the new one;
 * - a hostile `_headers` or `_redirects` (Set-Cookie, a policy dropping the sandbox, a redirect
 *   to another origin) is refused by `tape deploy` before anything is sent, refused by the
 *   gateway's certifier when published without the CLI, and never served.
 */
jest.setTimeout(600_000);

const run = promisify(execFile);
const VITEPRESS = 'vitepress@1.6.4';

interface PageGlobals {
  document: {
    querySelector(selector: string): unknown;
    documentElement: { classList: { contains(name: string): boolean } };
    fonts: Iterable<{ family: string; status: string }> & { ready: Promise<unknown> };
  };
  __VP_SITE_DATA__?: unknown;
}

/** Builds the VitePress site in `dir`; its stylesheet `ext.css` uses a font of `fontOrigin`. */
async function buildVitePressSite(dir: string, fontOrigin: string): Promise<string> {
  writeFileSync(join(dir, 'package.json'), '{"name":"ssg-under-test","private":true}');
  await run('npm', ['install', '--no-audit', '--no-fund', '--prefer-offline', VITEPRESS], {
    cwd: dir,
    timeout: 300_000,
  });
  const docs = join(dir, 'docs');
  mkdirSync(join(docs, '.vitepress'), { recursive: true });
  mkdirSync(join(docs, 'public'), { recursive: true });
  writeFileSync(
    join(docs, '.vitepress', 'config.mjs'),
    `export default { title: 'Tape docs', head: [['link', { rel: 'stylesheet', href: '/ext.css' }]] };\n`,
  );
  writeFileSync(
    join(docs, 'public', 'ext.css'),
    `@font-face { font-family: "Tape External"; src: url(${fontOrigin}/ext.woff2) format("woff2"); }\n` +
      `.ext { font-family: "Tape External", sans-serif; }\n`,
  );
  writeFileSync(
    join(docs, 'index.md'),
    '# Hello from tape\n\n<p class="ext">Text in an external font.</p>\n\n[Guide](/guide)\n',
  );
  writeFileSync(join(docs, 'guide.md'), '# Guide\n\nThe guide.\n');
  await run(join(dir, 'node_modules', '.bin', 'vitepress'), ['build', 'docs'], {
    cwd: dir,
    timeout: 300_000,
  });
  return join(docs, '.vitepress', 'dist');
}

/** Every file of a directory, by its relative name. */
function filesOf(root: string, prefix = ''): SiteFiles {
  const files: SiteFiles = {};
  for (const entry of readdirSync(join(root, prefix), { withFileTypes: true })) {
    const name = prefix === '' ? entry.name : `${prefix}/${entry.name}`;
    if (entry.isDirectory()) Object.assign(files, filesOf(root, name));
    else files[name] = readFileSync(join(root, name));
  }
  return files;
}

/** The distinct `Content-Security-Policy: …` lines the deploy's warnings propose. */
function proposedLines(stderr: string): string[] {
  return [...new Set([...stderr.matchAll(/Content-Security-Policy: (.+)/g)].map((m) => m[1]))];
}

describe('rules of a site built by a static-site generator, in headless Chromium', () => {
  let gw: SiteGateway;
  let chromium: HeadlessChromium;
  let fonts: OriginServer;
  let work: string;
  let dist: string;
  let configDir: string;
  let siteDir: string;
  let label: string;
  let tapeAddress: string;

  const tape = async (args: string[]) => gw.tape(args, configDir);
  const deploy = async (files: SiteFiles) => {
    rmSync(siteDir, { recursive: true, force: true });
    for (const [name, body] of Object.entries(files)) {
      const path = join(siteDir, name);
      mkdirSync(join(path, '..'), { recursive: true });
      writeFileSync(path, body);
    }
    return tape(['deploy', join(siteDir, 'index.html')]);
  };
  const siteUrl = (path = '/') => `http://${label}.localhost:${gw.port}${path}`;

  beforeAll(async () => {
    work = mkdtempSync(join(tmpdir(), 'ssg-'));
    configDir = mkdtempSync(join(tmpdir(), 'tape-cli-'));
    siteDir = mkdtempSync(join(tmpdir(), 'tape-site-'));
    let fontBytes = Buffer.alloc(0);
    fonts = await startOriginServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'font/woff2', 'access-control-allow-origin': '*' });
      res.end(fontBytes);
    });
    dist = await buildVitePressSite(work, fonts.origin);
    // The font served from the other origin: one VitePress ships (Inter), a real woff2.
    const woff2 = readdirSync(join(dist, 'assets')).find((n) => n.endsWith('.woff2'))!;
    fontBytes = readFileSync(join(dist, 'assets', woff2));
    chromium = await launchChromium();
    gw = await startSiteGateway();
    for (const args of [['keygen'], ['airdrop']]) expect((await tape(args)).code).toBe(0);
    const created = await tape(['create', '--capacity', '20m', '--epochs', '24']);
    expect(created.code).toBe(0);
    label = /label\s*:?\s*([a-z2-7]{52})/i.exec(created.stdout)![1];
    tapeAddress = /tape address\s*:?\s*(\S+)/i.exec(created.stdout)![1];
  });

  afterAll(async () => {
    await chromium?.close();
    await fonts?.close();
    for (const dir of [work, configDir, siteDir]) {
      if (dir) rmSync(dir, { recursive: true, force: true });
    }
    expect(await gw?.stop()).toBe(0);
  });

  /** Loads a page; what the policy refused (console errors) and what ran and loaded. */
  async function visit(path: string) {
    const context = await chromium.context();
    try {
      const page: Page = await context.newPage();
      const refused: string[] = [];
      page.on('console', (m) => {
        if (m.type() === 'error' && /Content Security Policy/i.test(m.text()))
          refused.push(m.text());
      });
      const response = await page.goto(siteUrl(path), { waitUntil: 'networkidle' });
      await page.evaluate(() => (globalThis as unknown as PageGlobals).document.fonts.ready);
      const state = await page.evaluate(() => {
        const g = globalThis as unknown as PageGlobals;
        const app = g.document.querySelector('#app') as { __vue_app__?: unknown } | null;
        return {
          siteData: g.__VP_SITE_DATA__ !== undefined,
          hydrated: app?.__vue_app__ !== undefined,
          font: [...g.document.fonts].find((f) => f.family.includes('Tape External'))?.status,
        };
      });
      return { status: response?.status(), url: page.url(), refused, ...state };
    } finally {
      await context.close();
    }
  }

  it('blocks inline scripts and the external font until _headers allows them, warning at deploy', async () => {
    const site = filesOf(dist);
    const first = await deploy({ ...site, _redirects: '/old-guide /guide 301\n' });
    expect(first.code).toBe(0);
    // The deploy names each blocked thing and the line that allows it.
    expect(first.stderr).toMatch(
      /warning: index\.html: an inline script \(line \d+\) is blocked by the site's Content-Security-Policy; to allow it, add to _headers:\n {2}\/\*\n {4}Content-Security-Policy: script-src 'sha256-[A-Za-z0-9+/]+={0,2}'/,
    );
    expect(first.stderr).toContain(
      `warning: ext.css: the font ${fonts.origin}/ext.woff2 is blocked by the site's Content-Security-Policy`,
    );
    expect(first.stderr).toContain(`Content-Security-Policy: font-src ${fonts.origin}`);
    const blocked = await visit('/');
    expect(blocked.status).toBe(200);
    expect(blocked.refused.some((r) => /inline script/i.test(r))).toBe(true);
    expect(blocked.refused.some((r) => /font/i.test(r))).toBe(true);
    expect(blocked.siteData).toBe(false);
    expect(blocked.hydrated).toBe(false);
    expect(blocked.font).not.toBe('loaded');
    expect(fonts.requests).toEqual([]);

    // The user copies the proposed lines into _headers and deploys again.
    const lines = proposedLines(first.stderr);
    expect(lines.length).toBeGreaterThanOrEqual(4);
    const headers = ['/*', ...lines.map((l) => `  Content-Security-Policy: ${l}`)].join('\n');
    const second = await deploy({
      ...site,
      _headers: `${headers}\n`,
      _redirects: '/old-guide /guide 301\n',
    });
    expect(second.code).toBe(0);
    expect(second.stderr).not.toContain('warning:');
    const allowed = await visit('/');
    expect(allowed.refused).toEqual([]);
    expect(allowed.siteData).toBe(true);
    expect(allowed.hydrated).toBe(true);
    expect(allowed.font).toBe('loaded');
    expect(fonts.requests).toContain('/ext.woff2');

    const moved = await visit('/old-guide');
    expect(new URL(moved.url).pathname).toBe('/guide');
    expect(moved.status).toBe(200);
    expect(moved.hydrated).toBe(true);
  });

  it('refuses a hostile _headers or _redirects at deploy and never serves it', async () => {
    const byHost = (path: string) =>
      siteGet(gw.url, path, { host: `${label}.localhost:${gw.port}` });
    const version = (await byHost('/')).headers['x-tape-version'];
    expect(version).toBe('2');
    const hostile = await deploy({
      ...filesOf(dist),
      _headers: [
        '/*',
        '  Set-Cookie: session=stolen; Domain=localhost',
        '  Content-Security-Policy: sandbox allow-scripts allow-same-origin',
        '  Content-Security-Policy: default-src * ',
        '  X-Content-Type-Options: none',
      ].join('\n'),
      _redirects: '/login https://evil.example/phish 302\n/x //evil.example/ 301\n',
    });
    expect(hostile.code).not.toBe(0);
    expect(hostile.stderr).toContain("the site's rules are refused; nothing was sent:");
    expect(hostile.stderr).toContain('_headers:2: a site can never set cookies');
    expect(hostile.stderr).toContain(
      "_headers:3: Content-Security-Policy: the sandbox is the gateway's, a site can neither set nor drop it",
    );
    expect(hostile.stderr).toContain(
      '_headers:4: Content-Security-Policy: default-src cannot be changed',
    );
    expect(hostile.stderr).toContain('_headers:5: X-Content-Type-Options is always nosniff');
    expect(hostile.stderr).toContain(
      '_redirects:1: "https://evil.example/phish" is another origin',
    );
    expect(hostile.stderr).toContain('_redirects:2: "//evil.example/" leaves the site\'s origin');
    for (const res of [
      await byHost('/'),
      await byHost('/login'),
      await byHost('/x'),
      await siteGet(gw.url, `/site/${tapeAddress}/login`),
    ]) {
      expect(res.headers['set-cookie']).toBeUndefined();
      expect(res.headers.location ?? '').not.toContain('evil');
      expect(res.headers['x-tape-version']).toBe(version);
      expect(res.headers['x-content-type-options']).toBe('nosniff');
    }

    // Without the CLI: the gateway's certifier refuses the same rules, whoever built the version.
    const uploads = new UploadClient(gw.url, gw.rpcUrl);
    try {
      const wallet = await uploads.fundedWallet();
      const other = await uploads.createTape(wallet, 1 << 20, 24);
      const segmentBytes = (await uploads.gateway.uploadConfig()).segmentBytes;
      const forgedRules = Buffer.from(
        JSON.stringify({ redirects: [], headers: [['/*', [['set-cookie', 'a=b']], []]] }),
      );
      await expect(
        uploads.store(
          wallet,
          other,
          Buffer.from('/*\n  Set-Cookie: a=b\n'),
          'text/plain',
          segmentBytes,
          '_headers',
          forgedRules,
        ),
      ).rejects.toThrow(/a site can never set cookies/);
      const page = await siteGet(gw.url, `/site/${other.address.toBase58()}/`);
      expect(page.headers['set-cookie']).toBeUndefined();
      expect(page.headers['x-tape-version']).toBeUndefined();
    } finally {
      uploads.close();
    }
  });
});
