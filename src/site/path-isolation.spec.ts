import { labelFromAddress } from '../chain/tape-label';
import { ConfigError, validateConfig } from '../config/config-loader';
import { DEFAULT_PATH_SANDBOX_FLAGS } from '../config/site.config';
import { pathSandboxPolicy, siteOriginResolver } from './path-isolation';
import { newSiteTestApp, useSiteTestApp } from './site-test-app.spec-support';

const TAPE = 'HrGUHhZBy1PcrUGVzoQG7bVDuvrmMRnKemDVGVP3wE7D';
const LABEL = labelFromAddress(TAPE);

describe('pathSandboxPolicy', () => {
  it('renders the default flags as a sandbox without allow-same-origin', () => {
    const policy = pathSandboxPolicy(DEFAULT_PATH_SANDBOX_FLAGS);
    expect(policy).toBe(
      'sandbox allow-scripts allow-forms allow-popups allow-popups-to-escape-sandbox ' +
        'allow-modals allow-downloads',
    );
    expect(policy).not.toMatch(/same-origin/);
  });

  it('is a plain sandbox with no flags, and lists each flag once', () => {
    expect(pathSandboxPolicy([])).toBe('sandbox');
    expect(pathSandboxPolicy(['forms', 'forms'])).toBe('sandbox allow-forms');
  });
});

describe('path isolation config', () => {
  const site = (over: Record<string, unknown>) =>
    validateConfig({ gateway: { site: over } }).gateway.site;

  it('defaults to sandbox with the default flags', () => {
    const config = site({});
    expect(config.path_isolation).toBe('sandbox');
    expect(config.path_sandbox_allow).toEqual(DEFAULT_PATH_SANDBOX_FLAGS);
  });

  it('refuses an unknown mode and allow-same-origin, naming the key', () => {
    expect(() => site({ path_isolation: 'none' })).toThrow(/gateway\.site\.path_isolation/);
    expect(() => site({ path_sandbox_allow: ['scripts', 'same-origin'] })).toThrow(
      /gateway\.site\.path_sandbox_allow/,
    );
    expect(() => site({ path_sandbox_allow: ['top-navigation'] })).toThrow(ConfigError);
  });
});

describe('siteOriginResolver', () => {
  const resolver = (over: Partial<Parameters<typeof siteOriginResolver>[0]>) =>
    siteOriginResolver({ path_isolation: 'redirect', subdomain_suffix: 'sites.example', ...over });

  it('redirects nowhere in sandbox mode', () => {
    expect(
      siteOriginResolver({ path_isolation: 'sandbox', subdomain_suffix: 'sites.example' }),
    ).toBeNull();
  });

  it('names the site subdomain: https, or http under localhost, or the public_url scheme', () => {
    expect(resolver({})!(TAPE)).toBe(`https://${LABEL}.sites.example`);
    expect(resolver({ subdomain_suffix: 'localhost:8080' })!(TAPE)).toBe(
      `http://${LABEL}.localhost:8080`,
    );
    expect(resolver({ subdomain_suffix: 'Sites.Example.' })!(TAPE)).toBe(
      `https://${LABEL}.sites.example`,
    );
    expect(resolver({ public_url: 'http://gw.sites.example:8000/' })!(TAPE)).toBe(
      `http://${LABEL}.sites.example`,
    );
  });

  it('names a pinned or alias origin while <prefix>--<label> fits one DNS label (63 bytes)', () => {
    expect(resolver({})!(TAPE, 'v3')).toBe(`https://v3--${LABEL}.sites.example`);
    expect(resolver({})!(TAPE, 'pr-123456')).toBe(`https://pr-123456--${LABEL}.sites.example`);
    // 10 characters + 2 + 52 = 64: no such host; the path route is served sandboxed instead.
    expect(resolver({})!(TAPE, 'pr-1234567')).toBeNull();
  });

  it('leaves path routes sandboxed without a subdomain suffix (a loaded config has one)', () => {
    expect(resolver({ subdomain_suffix: '' })).toBeNull();
  });
});

describe('path routes on the shared origin', () => {
  describe('sandbox (default)', () => {
    const site = useSiteTestApp({
      'index.html': '<h1>home</h1>',
      'docs/index.html': '<h1>docs</h1>',
      '404.html': '<h1>missing</h1>',
      'app.js': 'console.log(1)',
    });

    const sandboxed = (csp: unknown) => {
      expect(csp).toEqual(expect.stringMatching(/^default-src 'self';.*, sandbox allow-scripts /));
      expect(csp).not.toMatch(/allow-same-origin/);
    };

    it('sandboxes every answer of /site/{tape}/: pages, 404.html, redirects, 304, OPTIONS', async () => {
      const inject = (url: string, extra: Record<string, string> = {}, method = 'GET') =>
        site.app.inject({ method: method as 'GET', url, headers: extra });
      const page = await inject(`/site/${site.tape}/`);
      expect(page.statusCode).toBe(200);
      sandboxed(page.headers['content-security-policy']);
      sandboxed((await inject(`/site/${site.tape}/app.js`)).headers['content-security-policy']);
      const missing = await inject(`/site/${site.tape}/nothing-here`);
      expect(missing.statusCode).toBe(404);
      sandboxed(missing.headers['content-security-policy']);
      const slash = await inject(`/site/${site.tape}/docs`);
      expect(slash.statusCode).toBe(308);
      sandboxed(slash.headers['content-security-policy']);
      const root = await inject(`/site/${site.tape}`);
      expect(root.statusCode).toBe(308);
      sandboxed(root.headers['content-security-policy']);
      const again = await inject(`/site/${site.tape}/`, {
        'if-none-match': String(page.headers.etag),
      });
      expect(again.statusCode).toBe(304);
      sandboxed(again.headers['content-security-policy']);
      const options = await inject(`/site/${site.tape}/`, {}, 'OPTIONS');
      expect(options.statusCode).toBe(204);
      sandboxed(options.headers['content-security-policy']);
    });

    it('does not sandbox the same site on its own hostname, before or after the path route', async () => {
      const viaHost = () =>
        site.app.inject({
          method: 'GET',
          url: '/',
          headers: { host: `${site.label}.localhost:8080` },
        });
      const before = await viaHost();
      await site.app.inject({ method: 'GET', url: `/site/${site.tape}/` });
      const after = await viaHost();
      for (const res of [before, after]) {
        expect(res.statusCode).toBe(200);
        expect(res.headers['content-security-policy']).toMatch(/^default-src 'self'/);
        expect(res.headers['content-security-policy']).not.toMatch(/sandbox/);
      }
      // And the path route keeps its sandbox after the hostname route prepared its answer.
      const path = await site.app.inject({ method: 'GET', url: `/site/${site.tape}/` });
      expect(path.headers['content-security-policy']).toMatch(/, sandbox /);
    });
  });

  describe('redirect', () => {
    const site = useSiteTestApp(
      { 'index.html': '<h1>home</h1>' },
      { site: { path_isolation: 'redirect', subdomain_suffix: 'localhost:8080' } },
    );

    it('answers 308 to the site origin, keeping the path and query as sent', async () => {
      const cases: [string, string][] = [
        [`/site/${site.tape}`, '/'],
        [`/site/${site.tape}?a=1`, '/?a=1'],
        [`/site/${site.tape}/`, '/'],
        [`/site/${site.tape}/docs/a%20b.html?x=1&y=2`, '/docs/a%20b.html?x=1&y=2'],
      ];
      for (const [url, rest] of cases) {
        const res = await site.app.inject({ method: 'GET', url });
        expect({ url, status: res.statusCode, location: res.headers.location }).toEqual({
          url,
          status: 308,
          location: `http://${site.label}.localhost:8080${rest}`,
        });
        expect(res.headers['content-security-policy']).toMatch(/, sandbox /);
        expect(res.body).not.toContain('<h1>home</h1>');
      }
      const head = await site.app.inject({ method: 'HEAD', url: `/site/${site.tape}/x` });
      expect(head.statusCode).toBe(308);
      const post = await site.app.inject({ method: 'POST', url: `/site/${site.tape}/x` });
      expect(post.statusCode).toBe(405);
    });

    it('still serves the site on its hostname', async () => {
      const res = await site.app.inject({
        method: 'GET',
        url: '/',
        headers: { host: `${site.label}.localhost:8080` },
      });
      expect(res.statusCode).toBe(200);
      expect(res.body).toBe('<h1>home</h1>');
    });

    it('refuses to start without a suffix', async () => {
      await expect(
        newSiteTestApp({ path_isolation: 'redirect', subdomain_suffix: '' }),
      ).rejects.toThrow(/subdomain_suffix is empty/);
    });
  });
});

describe('gateway.site.well_known_allow', () => {
  const site = (over: Record<string, unknown>) =>
    validateConfig({ gateway: { site: over } }).gateway.site;

  it('allows no .well-known/ name by default', () => {
    expect(site({}).well_known_allow).toEqual([]);
  });

  it('takes exact names under .well-known/', () => {
    const names = [
      '.well-known/security.txt',
      '.well-known/apple-app-site-association',
      '.well-known/a/b.json',
    ];
    expect(site({ well_known_allow: names }).well_known_allow).toEqual(names);
  });

  it.each([
    'security.txt',
    '/.well-known/security.txt',
    '.well-known/',
    '.well-known',
    '.well-known/.hidden',
    '.well-known/a//b',
    '.well-known/*',
    '.well-known/a b',
    '.well-known/acme-challenge/token',
    '.well-known/acme-challenge',
    'docs/.well-known/x',
  ])('refuses %j, naming the key', (name) => {
    expect(() => site({ well_known_allow: [name] })).toThrow(
      /gateway\.site\.well_known_allow: .*exact names under \.well-known\//,
    );
  });
});
