import { allowedOrigin, preflightHeaders, variesByOrigin } from './cors';
import { parseOriginList } from '../config/origin';
import { DEFAULT_PATH_SANDBOX_FLAGS } from '../config/site.config';
import { pathSandboxPolicy } from './path-isolation';
import { buildSitePolicy, contentSecurityPolicy, GatewaySiteDefaults } from './site-policy';

const defaults = (over: Partial<GatewaySiteDefaults> = {}): GatewaySiteDefaults => ({
  spaFallback: false,
  maxAgeSecs: 60,
  corsOrigins: parseOriginList([], false),
  connectOrigins: parseOriginList([], false),
  pathSandbox: pathSandboxPolicy(DEFAULT_PATH_SANDBOX_FLAGS),
  ...over,
});

describe('buildSitePolicy', () => {
  it('uses the gateway settings when the site has none', () => {
    const policy = buildSitePolicy(defaults(), {});
    expect(policy.cacheControl).toBe('public, max-age=60, must-revalidate');
    expect(policy.spaFallback).toBe(false);
    expect(policy.contentSecurityPolicy).toContain("connect-src 'self';");
  });

  it('lets the site override max-age, fallback and cors origins', () => {
    const policy = buildSitePolicy(
      defaults({ corsOrigins: parseOriginList(['https://gw.example'], false) }),
      {
        maxAgeSecs: 0,
        spaFallback: true,
        corsOrigins: parseOriginList(['https://site.example'], false),
      },
    );
    expect(policy.cacheControl).toBe('public, max-age=0, must-revalidate');
    expect(policy.spaFallback).toBe(true);
    expect([...policy.corsOrigins]).toEqual(['https://site.example']);
  });

  it('extends connect-src with both the gateway and the site origins', () => {
    const policy = buildSitePolicy(
      defaults({ connectOrigins: parseOriginList(['https://gw-api.example'], false) }),
      {
        connectOrigins: parseOriginList(
          ['wss://site-live.example', 'https://gw-api.example'],
          false,
        ),
      },
    );
    expect(policy.contentSecurityPolicy).toContain(
      "connect-src 'self' https://gw-api.example wss://site-live.example;",
    );
  });

  it('opens connect-src to any endpoint with *', () => {
    const fromGateway = buildSitePolicy(
      defaults({ connectOrigins: parseOriginList(['*'], true) }),
      {},
    );
    expect(fromGateway.contentSecurityPolicy).toContain('connect-src * ws: wss:;');
    const fromSite = buildSitePolicy(defaults(), { connectOrigins: parseOriginList(['*'], true) });
    expect(fromSite.contentSecurityPolicy).toContain('connect-src * ws: wss:;');
  });

  it('keeps the site policy for its own origin and adds the sandbox on the shared origin', () => {
    const policy = buildSitePolicy(defaults(), {});
    expect(policy.contentSecurityPolicy).not.toMatch(/sandbox/);
    // Two policies in one field (comma-separated): a browser enforces both.
    expect(policy.sharedOriginContentSecurityPolicy).toBe(
      `${policy.contentSecurityPolicy}, sandbox allow-scripts allow-forms allow-popups ` +
        'allow-popups-to-escape-sandbox allow-modals allow-downloads',
    );
    expect(policy.sharedOriginContentSecurityPolicy).not.toMatch(/allow-same-origin/);
  });
});

describe('contentSecurityPolicy', () => {
  const csp = contentSecurityPolicy(false, []);

  it('is a same-origin policy a normal static site works under', () => {
    const directives = Object.fromEntries(
      csp.split('; ').map((d) => [d.split(' ')[0], d.split(' ').slice(1).join(' ')]),
    );
    expect(directives).toEqual({
      'default-src': "'self'",
      'script-src': "'self'",
      'style-src': "'self' 'unsafe-inline'",
      'img-src': "'self' data: blob:",
      'media-src': "'self' data: blob:",
      'font-src': "'self' data:",
      'connect-src': "'self'",
      'worker-src': "'self' blob:",
      'manifest-src': "'self'",
      'frame-src': "'self'",
      'frame-ancestors': "'self'",
      'base-uri': "'self'",
      'form-action': "'self'",
      'object-src': "'none'",
    });
  });

  it('is one header line', () => {
    expect(csp).not.toMatch(/[\r\n]/);
  });
});

describe('CORS', () => {
  const policy = buildSitePolicy(defaults(), {
    corsOrigins: parseOriginList(['https://reader.example', 'http://localhost:3000'], false),
  });
  const open = buildSitePolicy(defaults(), { corsOrigins: parseOriginList(['*'], true) });
  const closed = buildSitePolicy(defaults(), {});

  it('echoes an allowed origin, and only that one', () => {
    expect(allowedOrigin(policy, 'https://reader.example')).toBe('https://reader.example');
    expect(allowedOrigin(policy, 'http://localhost:3000')).toBe('http://localhost:3000');
    expect(allowedOrigin(policy, 'https://evil.example')).toBeUndefined();
    expect(allowedOrigin(policy, 'https://reader.example.evil.example')).toBeUndefined();
    expect(allowedOrigin(policy, 'null')).toBeUndefined();
    expect(allowedOrigin(policy, undefined)).toBeUndefined();
    expect(variesByOrigin(policy)).toBe(true);
  });

  it('answers * when any origin may read', () => {
    expect(allowedOrigin(open, 'https://anyone.example')).toBe('*');
    expect(variesByOrigin(open)).toBe(false);
  });

  it('grants nothing with an empty list', () => {
    expect(allowedOrigin(closed, 'https://reader.example')).toBeUndefined();
    expect(variesByOrigin(closed)).toBe(false);
  });

  it('answers a preflight from an allowed origin', () => {
    const headers = preflightHeaders(policy, {
      origin: 'https://reader.example',
      method: 'GET',
      headers: 'range, if-none-match',
    });
    expect(headers['access-control-allow-origin']).toBe('https://reader.example');
    expect(headers['access-control-allow-methods']).toBe('GET, HEAD, OPTIONS');
    expect(headers['access-control-allow-headers']).toMatch(/Range/);
    expect(headers.vary).toMatch(/Origin/);
  });

  it('grants no preflight to another origin, another method or other headers', () => {
    for (const request of [
      { origin: 'https://evil.example', method: 'GET', headers: undefined },
      { origin: 'https://reader.example', method: 'PUT', headers: undefined },
      { origin: 'https://reader.example', method: 'GET', headers: 'authorization' },
    ]) {
      expect(preflightHeaders(policy, request)['access-control-allow-origin']).toBeUndefined();
    }
  });
});
