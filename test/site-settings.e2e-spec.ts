import { startSiteGateway, SiteGateway } from './support/processes/site-gateway';
import { siteGet, SiteResponse } from './support/clients/site-http';
import { publishSite, PublishedSite } from './support/labs/site-publish';

/**
 * `_site.json` variants and the gateway-wide settings, redeploys going live within the max-age,
 * and expiry, against gateway processes with sites published by `tape deploy`.
 */
jest.setTimeout(300_000);

const EPOCH_SECS = 4;
/** Long-lived tapes on the short-epoch gateway (small capacity keeps the cost within the faucet). */
const LONG = { epochs: 100_000, capacity: '1m' };

function connectSrc(res: SiteResponse): string {
  const csp = res.headers['content-security-policy'] as string;
  return csp.split('; ').find((d) => d.startsWith('connect-src ')) ?? '';
}

async function waitFor<T>(
  what: string,
  probe: () => Promise<T | undefined>,
  timeoutMs: number,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

/** Log lines travel through a pipe from the gateway process: wait for them briefly. */
async function logged(gateway: SiteGateway, text: string): Promise<void> {
  await waitFor(
    `log line "${text}"`,
    async () => (gateway.logs().includes(text) ? true : undefined),
    5_000,
  );
}

describe('_site.json and gateway site settings (gateway processes)', () => {
  let gw: SiteGateway;
  let locked: SiteGateway;
  const sites: Record<string, PublishedSite> = {};
  let lockedSite: PublishedSite;

  beforeAll(async () => {
    [gw, locked] = await Promise.all([
      startSiteGateway({ localnet: { epoch_duration_secs: EPOCH_SECS } }),
      startSiteGateway({
        site: {
          tenant_overrides: false,
          spa_fallback: true,
          max_age_secs: 120,
          cors_origins: ['https://gw-reader.example'],
          connect_origins: ['https://api.example', 'wss://api.example'],
        },
      }),
    ]);
    const settings: Record<string, string> = {
      full: JSON.stringify({
        spa_fallback: true,
        max_age_secs: 300,
        cors_origins: ['https://reader.example'],
        connect_origins: ['https://api.example', 'wss://live.example:8443'],
        some_future_field: { nested: true },
      }),
      notJson: '{ "spa_fallback": true, ',
      wrongTypes: JSON.stringify({
        spa_fallback: 'yes',
        max_age_secs: -1,
        cors_origins: 'https://reader.example',
        connect_origins: ['https://still-applied.example'],
      }),
      oversized: JSON.stringify({ spa_fallback: true, padding: 'x'.repeat(70 * 1024) }),
      hostile: JSON.stringify({
        connect_origins: [
          "https://a.example; script-src 'unsafe-inline'",
          'https://b.example\r\nX-Injected: 1',
          '*',
          'javascript://c.example',
          'https://ok.example',
        ],
        cors_origins: ['*', 'https://reader.example, https://evil.example'],
      }),
    };
    const entries = await Promise.all(
      Object.entries(settings).map(async ([name, json]) => {
        const published = await publishSite(
          gw,
          { 'index.html': `<h1>${name}</h1>`, '_site.json': json },
          LONG,
        );
        return [name, published] as const;
      }),
    );
    for (const [name, published] of entries) sites[name] = published;
    lockedSite = await publishSite(locked, {
      'index.html': '<h1>locked</h1>',
      '_site.json': JSON.stringify({
        spa_fallback: false,
        max_age_secs: 5,
        cors_origins: ['https://site-reader.example'],
        connect_origins: ['https://site-api.example'],
      }),
    });
  });

  afterAll(async () => {
    for (const published of [...Object.values(sites), lockedSite]) published?.remove();
    expect(await gw?.stop()).toBe(0);
    expect(await locked?.stop()).toBe(0);
  });

  const get = (name: string, path: string, headers: Record<string, string> = {}) =>
    siteGet(gw.url, path, { host: `${sites[name].label}.localhost:${gw.port}`, headers });

  it('applies every field of a valid _site.json and ignores unknown fields', async () => {
    const res = await get('full', '/', { origin: 'https://reader.example' });
    expect(res.headers['cache-control']).toBe('public, max-age=300, must-revalidate');
    expect(res.headers['access-control-allow-origin']).toBe('https://reader.example');
    expect(connectSrc(res)).toBe("connect-src 'self' https://api.example wss://live.example:8443");
    const route = await get('full', '/some/client/route');
    expect(route.status).toBe(200);
    expect(route.text).toBe('<h1>full</h1>');
  });

  it('ignores a _site.json that is not JSON, with a warning in the log', async () => {
    const res = await get('notJson', '/some/route');
    expect(res.status).toBe(404);
    expect((await get('notJson', '/')).headers['cache-control']).toBe(
      'public, max-age=60, must-revalidate',
    );
    await logged(gw, `site ${sites.notJson.tape}: _site.json is not JSON`);
  });

  it('ignores fields of the wrong type one by one, keeping the others', async () => {
    const res = await get('wrongTypes', '/', { origin: 'https://reader.example' });
    expect(res.status).toBe(200);
    expect(res.headers['cache-control']).toBe('public, max-age=60, must-revalidate');
    expect(res.headers['access-control-allow-origin']).toBeUndefined();
    expect(connectSrc(res)).toBe("connect-src 'self' https://still-applied.example");
    expect((await get('wrongTypes', '/route')).status).toBe(404);
    await logged(gw, `site ${sites.wrongTypes.tape}: _site.json: spa_fallback must be a boolean`);
    await logged(gw, '_site.json: max_age_secs must be an integer from 0 to 31536000: ignored');
  });

  it('ignores a _site.json over 64 KiB', async () => {
    expect((await get('oversized', '/route')).status).toBe(404);
    await logged(
      gw,
      `site ${sites.oversized.tape}: _site.json is ${70 * 1024 + 34} bytes, over the 65536-byte limit`,
    );
  });

  it('drops origin entries that could inject CSP directives or header lines, and * unless allowed', async () => {
    const res = await get('hostile', '/', { origin: 'https://evil.example' });
    expect(res.status).toBe(200);
    expect(connectSrc(res)).toBe("connect-src 'self' https://ok.example");
    expect(res.headers['content-security-policy']).toContain("script-src 'self';");
    expect(res.headers['content-security-policy']).toBe(
      "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; " +
        "img-src 'self' data: blob:; media-src 'self' data: blob:; font-src 'self' data:; " +
        "connect-src 'self' https://ok.example; worker-src 'self' blob:; manifest-src 'self'; " +
        "frame-src 'self'; frame-ancestors 'self'; base-uri 'self'; form-action 'self'; object-src 'none'",
    );
    expect(res.headers['x-injected']).toBeUndefined();
    expect(res.headers['access-control-allow-origin']).toBeUndefined();
    // The log is JSON: the quotes around * arrive escaped.
    await logged(
      gw,
      `site ${sites.hostile.tape}: _site.json: connect_origins[2] \\"*\\" is not allowed here dropped`,
    );
  });

  it('ignores _site.json entirely with tenant_overrides: false, using the gateway settings', async () => {
    const host = `${lockedSite.label}.localhost:${locked.port}`;
    const res = await siteGet(locked.url, '/', {
      host,
      headers: { origin: 'https://site-reader.example' },
    });
    expect(res.headers['cache-control']).toBe('public, max-age=120, must-revalidate');
    expect(res.headers['access-control-allow-origin']).toBeUndefined();
    expect(connectSrc(res)).toBe("connect-src 'self' https://api.example wss://api.example");
    const gatewayReader = await siteGet(locked.url, '/', {
      host,
      headers: { origin: 'https://gw-reader.example' },
    });
    expect(gatewayReader.headers['access-control-allow-origin']).toBe('https://gw-reader.example');
    const route = await siteGet(locked.url, '/deep/route', { host });
    expect(route.status).toBe(200);
    expect(route.text).toBe('<h1>locked</h1>');
  });

  it('makes a redeploy live within the site max-age', async () => {
    const site = await publishSite(
      gw,
      { 'index.html': 'version 1', '_site.json': JSON.stringify({ max_age_secs: 2 }) },
      LONG,
    );
    try {
      const host = `${site.label}.localhost:${gw.port}`;
      const first = await siteGet(gw.url, '/', { host });
      expect(first.text).toBe('version 1');
      expect(first.headers['cache-control']).toBe('public, max-age=2, must-revalidate');
      await site.redeploy({
        'index.html': 'version 2',
        '_site.json': JSON.stringify({ max_age_secs: 2 }),
      });
      const deployedAt = Date.now();
      const second = await waitFor(
        'the new version',
        async () => {
          const res = await siteGet(gw.url, '/', { host });
          return res.text === 'version 2' ? res : undefined;
        },
        10_000,
      );
      expect(Date.now() - deployedAt).toBeLessThan(3_000);
      expect(second.headers.etag).not.toBe(first.headers.etag);
    } finally {
      site.remove();
    }
  });

  it('stops serving an expired tape: 410 Gone on both routes', async () => {
    const site = await publishSite(
      gw,
      { 'index.html': 'short-lived' },
      { epochs: 5, capacity: '1m' },
    );
    try {
      const host = `${site.label}.localhost:${gw.port}`;
      const before = await siteGet(gw.url, '/', { host });
      expect(before.status).toBe(200);
      const gone = await waitFor(
        'expiry',
        async () => {
          const res = await siteGet(gw.url, '/', { host });
          return res.status === 410 ? res : undefined;
        },
        6 * EPOCH_SECS * 1000 + 10_000,
      );
      expect(gone.text).toMatch(/no longer served/);
      expect(gone.headers['content-type']).toBe('text/html; charset=utf-8');
      expect((await siteGet(gw.url, `/site/${site.tape}/`)).status).toBe(410);
      expect((await siteGet(gw.url, `/site/${site.tape}/anything.css`)).status).toBe(410);
    } finally {
      site.remove();
    }
  });
});
