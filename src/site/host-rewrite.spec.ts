import { SiteConfig } from '../config/site.config';
import { labelFromAddress } from '../chain/tape-label';
import { HostRouter } from '../domains/host-router';
import { TxtBindingService } from '../domains/txt-binding.service';
import {
  createHostRewrite,
  HOST_ROUTE_PREFIX,
  REFUSED_TARGET,
  REFUSED_TARGET_ROUTE,
  RewritableRequest,
  SITE_HOST,
} from './host-rewrite';

const TAPE = 'So11111111111111111111111111111111111111112';

function siteHostsOf(site: SiteConfig): (host: string) => boolean {
  const router = new HostRouter(site, {} as TxtBindingService);
  return (host) => router.route(host).kind !== 'gateway';
}
const LABEL = labelFromAddress(TAPE);

function newTestRewrite(over: Partial<SiteConfig> = {}) {
  const site = Object.assign(new SiteConfig(), over);
  const rewrite = createHostRewrite(siteHostsOf(site));
  return (host: string | undefined, url = '/healthz') => {
    const req: RewritableRequest = { url, headers: host === undefined ? {} : { host } };
    const out = rewrite(req);
    if ((out !== url) !== (req[SITE_HOST] === true)) throw new Error('mark and rewrite disagree');
    return out;
  };
}

describe('createHostRewrite', () => {
  it('keeps the URL on the gateway own hosts', () => {
    const rewrite = newTestRewrite();
    for (const host of [
      'localhost',
      'localhost:8080',
      '127.0.0.1:8080',
      '[::1]:8080',
      'LOCALHOST.',
      undefined,
    ]) {
      expect(rewrite(host)).toBe('/healthz');
    }
  });

  it('sends <label>.<suffix> to the host route, query kept', () => {
    const rewrite = newTestRewrite();
    expect(rewrite(`${LABEL}.localhost:8080`, '/app.js?v=2')).toBe(
      `${HOST_ROUTE_PREFIX}/app.js?v=2`,
    );
    expect(rewrite(`${LABEL.toUpperCase()}.LOCALHOST`, '/')).toBe(`${HOST_ROUTE_PREFIX}/`);
  });

  it('serves a site file named like a gateway route on a site host', () => {
    const rewrite = newTestRewrite();
    expect(rewrite(`${LABEL}.localhost`, '/healthz')).toBe(`${HOST_ROUTE_PREFIX}/healthz`);
    expect(rewrite(`${LABEL}.localhost`, '/object/abc')).toBe(`${HOST_ROUTE_PREFIX}/object/abc`);
  });

  it('sends other names under the suffix to the host route too (they answer 404 there)', () => {
    const rewrite = newTestRewrite();
    expect(rewrite('not-a-label.localhost')).toBe(`${HOST_ROUTE_PREFIX}/healthz`);
  });

  it('sends operator domains to the host route, even one named like a gateway host', () => {
    const rewrite = newTestRewrite({ domains: { 'www.example.com': TAPE, localhost: TAPE } });
    expect(rewrite('www.example.com')).toBe(`${HOST_ROUTE_PREFIX}/healthz`);
    expect(rewrite('WWW.EXAMPLE.COM.:443')).toBe(`${HOST_ROUTE_PREFIX}/healthz`);
    expect(rewrite('localhost:8080')).toBe(`${HOST_ROUTE_PREFIX}/healthz`);
  });

  it('leaves unknown hosts on the gateway unless txt_domains is on', () => {
    expect(newTestRewrite()('customer.example.org')).toBe('/healthz');
    const txt = newTestRewrite({ txt_domains: true });
    expect(txt('customer.example.org')).toBe(`${HOST_ROUTE_PREFIX}/healthz`);
    expect(txt('localhost')).toBe('/healthz');
    expect(txt('10.1.2.3:8080')).toBe('/healthz');
    expect(txt('[2001:db8::1]')).toBe('/healthz');
    expect(txt('intranet')).toBe('/healthz');
  });

  it('counts the suffix host and the public_url host as the gateway', () => {
    const rewrite = newTestRewrite({
      subdomain_suffix: 'sites.example.net',
      public_url: 'https://gw.example.net:8443/',
      txt_domains: true,
    });
    expect(rewrite('sites.example.net')).toBe('/healthz');
    expect(rewrite('gw.example.net')).toBe('/healthz');
    expect(rewrite(`${LABEL}.sites.example.net`)).toBe(`${HOST_ROUTE_PREFIX}/healthz`);
  });

  it('uses the configured gateway_hosts', () => {
    const rewrite = newTestRewrite({ gateway_hosts: ['gateway.internal'], txt_domains: true });
    expect(rewrite('gateway.internal')).toBe('/healthz');
    expect(rewrite('other.internal')).toBe(`${HOST_ROUTE_PREFIX}/healthz`);
  });

  it('leaves hostile or empty host values on the gateway routes', () => {
    const rewrite = newTestRewrite({ txt_domains: true });
    for (const host of ['', ' ', 'a\u0000b.example', 'caf\u00e9.example', 'x'.repeat(400)]) {
      expect(rewrite(host)).toBe('/healthz');
    }
  });

  describe('target forms other than origin-form (RFC 9112 §3.2)', () => {
    const rewrite = createHostRewrite(siteHostsOf(new SiteConfig()));
    const site = `${LABEL}.localhost:8080`;
    const run = (url: string, host?: string) => {
      const req: RewritableRequest = { url, headers: host === undefined ? {} : { host } };
      return { out: rewrite(req), req };
    };

    it('routes an absolute-form target on a site host to the site, never a gateway route', () => {
      for (const path of ['/object/x', '/healthz', '/upload/x', '/site/x/', '/']) {
        const { out, req } = run(`http://${site}${path}`, site);
        expect(out).toBe(`${HOST_ROUTE_PREFIX}${path}`);
        expect(req[SITE_HOST]).toBe(true);
      }
    });

    it('takes the Host from the authority when there is no Host header', () => {
      const { out, req } = run(`http://${site}/healthz`);
      expect(out).toBe(`${HOST_ROUTE_PREFIX}/healthz`);
      expect(req.headers.host).toBe(site);
      expect(run('http://localhost:8080/healthz').out).toBe('/healthz');
    });

    it('keeps an absolute-form target on the gateway host a gateway route', () => {
      const { out, req } = run('http://localhost:8080/healthz?x', 'localhost:8080');
      expect(out).toBe('/healthz?x');
      expect(req[SITE_HOST]).toBeUndefined();
    });

    it('refuses a mismatched authority, asterisk-form and authority-form', () => {
      for (const [url, host] of [
        ['http://x/healthz', site],
        ['http://localhost:8080/healthz', site],
        [`http://${site}/healthz`, 'localhost:8080'],
        ['*', site],
        ['localhost:8080', site],
      ] as const) {
        const { out, req } = run(url, host);
        expect([url, out]).toEqual([url, REFUSED_TARGET_ROUTE]);
        expect(req[REFUSED_TARGET]).toMatch(/target/);
        expect(req[SITE_HOST]).toBeUndefined();
      }
    });
  });
});
