import { compileSiteRules } from '../versions/rules/site-rules';
import { policyForPath } from './site-path-policy';
import { buildSitePolicy } from './site-policy';
import { SitePolicy } from './site-policy';

const base = buildSitePolicy(
  {
    spaFallback: false,
    maxAgeSecs: 60,
    corsOrigins: { any: false, origins: [], dropped: [] },
    connectOrigins: { any: false, origins: ['https://api.example'], dropped: [] },
    pathSandbox: 'sandbox allow-scripts',
  },
  {},
);

describe('policyForPath', () => {
  it('returns the site policy for a path no rule matches, and one shared policy per rule set', () => {
    const rules = compileSiteRules({
      headers: Buffer.from(
        '/a/*\n  Content-Security-Policy: img-src https://img.example\n  Cache-Control: no-cache\n',
      ),
    });
    const memo = new Map<string, SitePolicy>();
    expect(policyForPath(base, rules, '/b', memo)).toBe(base);
    const one = policyForPath(base, rules, '/a/1', memo);
    expect(policyForPath(base, rules, '/a/2', memo)).toBe(one);
    expect(one.memoised).toBe(true);
    expect(one.cacheControl).toBe('no-cache');
    expect(one.contentSecurityPolicy).toContain("img-src 'self' data: blob: https://img.example;");
    expect(one.contentSecurityPolicy).toContain("connect-src 'self' https://api.example;");
    expect(one.sharedOriginContentSecurityPolicy).toMatch(/, sandbox allow-scripts$/);
  });

  it('keeps at most 1,024 rule sets per snapshot, whatever the paths asked for', () => {
    // Eleven rules that each match on one segment: 2^11 sets of matching rules.
    const text = Array.from(
      { length: 11 },
      (_, i) =>
        `/${':p/'.repeat(i).replace(/:p/g, (_m, at: number) => `:p${at}`)}v/*\n  X-Robots-Tag: r${i}\n`,
    ).join('');
    const rules = compileSiteRules({ headers: Buffer.from(text) });
    const memo = new Map<string, SitePolicy>();
    let unkept = 0;
    for (let n = 0; n < 2048; n++) {
      const path = `/${Array.from({ length: 11 }, (_, i) => ((n >> i) & 1 ? 'v' : 'w')).join('/')}`;
      const policy = policyForPath(base, rules, path, memo);
      if (policy !== base && policy.memoised !== true) unkept++;
    }
    expect(memo.size).toBe(1024);
    expect(unkept).toBeGreaterThan(0);
  });
});
