import { readFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { join } from 'node:path';
import { getTls, NO_CERTIFICATE, startCaddyFor, CaddyProcess } from './support/processes/caddy';
import { DnssecLab } from './support/labs/dnssec-lab';
import { GatewayProcess, REPO_ROOT, startGateway } from './support/processes/gateway';
import { LedgerSite, publishOnFreshLedger } from './support/labs/ledger-site';
import { metricsText, sample } from './support/clients/metrics-text';

/**
 * Issue 17, the operator half, on real processes: the built gateway (metrics, /livez and the
 * TLS ask endpoint on its admin listener, the access log), a DNSSEC lab (BIND + unbound) for a
 * TXT-bound customer domain, and Debian's Caddy running deploy/Caddyfile with its internal CA.
 */
jest.setTimeout(180_000);

const SUFFIX = 'sites.test';
const OPERATOR_DOMAIN = 'shop.customer.test';
const TXT_DOMAIN = 'site.example.test';
const SITE_BUDGET = 4;

interface Answer {
  status: number;
  body: string;
  headers: Record<string, string | string[] | undefined>;
}

/** A plain HTTP GET with a Host header of our choosing, from a chosen loopback address. */
function get(port: number, host: string, path = '/', localAddress = '127.0.0.1'): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      { host: '127.0.0.1', port, path, localAddress, agent: false, headers: { host } },
      (res) => {
        let body = '';
        res.on('data', (d: Buffer) => (body += d.toString()));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body, headers: res.headers }));
      },
    );
    req.on('error', reject);
    req.end();
  });
}

function accessLines(gw: GatewayProcess): Record<string, unknown>[] {
  return gw
    .logs()
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l) as Record<string, unknown>)
    .filter((l) => l.event === 'request');
}

/** The access-log lines of `client`, once there are `count` (the line follows the answer). */
async function linesOf(
  gw: GatewayProcess,
  client: string,
  count: number,
): Promise<Record<string, unknown>[]> {
  const deadline = Date.now() + 5000;
  for (;;) {
    const lines = accessLines(gw).filter((l) => l.client === client);
    if (lines.length >= count || Date.now() > deadline) return lines;
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe('operator observability and HTTPS (issue 17)', () => {
  let ledger: LedgerSite;
  let tape: string;
  let label: string;
  let lab: DnssecLab;
  let gw: GatewayProcess;
  let caddy: CaddyProcess;

  beforeAll(async () => {
    ledger = await publishOnFreshLedger('tape-observability-', {
      'index.html': '<!doctype html><title>o</title><h1>observed site</h1>',
    });
    ({ tape, label } = ledger);

    lab = await DnssecLab.start([
      { origin: 'example.test', signed: true, records: [`_tape.site 300 IN TXT "${tape}"`] },
    ]);
    gw = await startGateway({
      dataDir: ledger.dir,
      env: { TAPE_LOG_LEVEL: 'info' },
      config: {
        gateway: {
          access_log: true,
          site: {
            subdomain_suffix: SUFFIX,
            domains: { [OPERATOR_DOMAIN]: tape },
            txt_domains: true,
            dns_resolvers: [lab.resolverAddress],
            dns_timeout_ms: 1000,
          },
          metering: {
            trusted_proxies: ['127.0.0.1/32'],
            site: { limit: SITE_BUDGET, ttl_secs: 300 },
          },
        },
      },
    });
    caddy = await startCaddyFor(gw, { siteSuffix: SUFFIX });
  });

  afterAll(async () => {
    await caddy?.stop();
    await gw?.stop();
    await lab?.stop();
    ledger?.remove();
  });

  describe('admin listener', () => {
    it('serves Prometheus metrics there and never on the public port', async () => {
      expect((await get(gw.port, '127.0.0.1', '/metrics')).status).toBe(404);
      const text = await metricsText(gw);
      expect(text).toContain('# TYPE tape_http_requests_total counter');
      expect(text).toContain('# TYPE tape_process_cpu_seconds_total counter');
      expect(text).toMatch(/^tape_localnet_slot \d+$/m);
      expect(text).toMatch(/^tape_chain_rpc_calls_total\{outcome="ok"\} [1-9]\d*$/m);
      // The embedded local network's JSON-RPC listener answered the gateway's own calls.
      expect(
        sample(text, 'tape_http_requests_total', 'listener="rpc",kind="rpc",status_class="2xx"'),
      ).toBeGreaterThan(0);
    });

    it('answers /livez 200 beside /healthz', async () => {
      const live = await fetch(`${gw.adminUrl}/livez`);
      expect([live.status, await live.text()]).toEqual([200, 'ok\n']);
      expect((await fetch(`${gw.url}/healthz`)).status).toBe(200);
    });

    it('counts site requests by kind and status class, hot path included, with no tape or host label', async () => {
      const before = sample(
        await metricsText(gw),
        'tape_http_requests_total',
        'listener="main",kind="site",status_class="2xx"',
      );
      for (let i = 0; i < 3; i++) {
        const page = await get(gw.port, `${label}.${SUFFIX}`, '/', '127.0.0.9');
        expect(page.body).toContain('observed site');
      }
      const text = await metricsText(gw);
      expect(
        sample(text, 'tape_http_requests_total', 'listener="main",kind="site",status_class="2xx"'),
      ).toBe(before + 3);
      expect(
        sample(text, 'tape_http_response_bytes_total', 'listener="main",kind="site"'),
      ).toBeGreaterThan(0);
      expect(text).not.toContain(tape);
      expect(text).not.toContain(label);
      expect(text).not.toContain('127.0.0.9');
    });

    it('the Grafana dashboard uses only metrics the gateway exposes', async () => {
      const exposed = new Set(
        [...(await metricsText(gw)).matchAll(/^# TYPE (\S+) (\S+)$/gm)].flatMap(([, name, type]) =>
          type === 'histogram' ? [`${name}_bucket`, `${name}_sum`, `${name}_count`] : [name],
        ),
      );
      const dashboard = JSON.parse(
        readFileSync(join(REPO_ROOT, 'deploy', 'grafana-dashboard.json'), 'utf8'),
      ) as { panels: { targets: { expr: string }[] }[] };
      const used = dashboard.panels.flatMap((p) =>
        p.targets.flatMap((t) => t.expr.match(/\btape_[a-z0-9_]+/g) ?? []),
      );
      expect(used.length).toBeGreaterThan(10);
      expect(used.filter((name) => !exposed.has(name))).toEqual([]);
    });
  });

  describe('TLS ask endpoint', () => {
    const ask = async (domain?: string): Promise<number> =>
      (
        await fetch(
          `${gw.adminUrl}/tls/ask${domain === undefined ? '' : `?domain=${encodeURIComponent(domain)}`}`,
        )
      ).status;

    it('says yes to hosts the gateway serves', async () => {
      expect(await ask(OPERATOR_DOMAIN)).toBe(200);
      expect(await ask(`${label}.${SUFFIX}`)).toBe(200);
      expect(await ask(TXT_DOMAIN)).toBe(200);
    });

    it('says no to anything else', async () => {
      expect(await ask('other.example.test')).toBe(404);
      expect(await ask('nobody.customer.test')).toBe(404);
      expect(await ask(`not-a-label.${SUFFIX}`)).toBe(404);
      // An address is no host name: no certificate for it either.
      expect(await ask('127.0.0.1')).toBe(400);
      expect(await ask('a..b')).toBe(400);
      expect(await ask()).toBe(400);
    });
  });

  describe('access log', () => {
    it('one line per request with kind, status, bytes, duration and client; credentials redacted', async () => {
      const secret = 'f'.repeat(64);
      await get(gw.port, '127.0.0.1', `/healthz?X-Amz-Signature=${secret}&keep=1`, '127.0.0.7');
      await get(gw.port, `${label}.${SUFFIX}`, '/', '127.0.0.7');
      const lines = await linesOf(gw, '127.0.0.7', 2);
      expect(lines).toHaveLength(2);
      expect(lines[0]).toMatchObject({
        listener: 'main',
        method: 'GET',
        kind: 'health',
        status: 200,
        url: '/healthz?X-Amz-Signature=REDACTED&keep=1',
      });
      expect(lines[1]).toMatchObject({ listener: 'main', kind: 'site', status: 200, url: '/' });
      expect(lines[1].bytes).toEqual(expect.any(Number));
      expect(lines[1].bytes as number).toBeGreaterThan(0);
      expect(lines[1].ms).toEqual(expect.any(Number));
      expect(gw.logs()).not.toContain(secret);
    });
  });

  describe('behind Caddy (deploy/Caddyfile, on-demand TLS from its internal CA)', () => {
    it('gets a certificate and the site for an operator domain', async () => {
      const page = await getTls(caddy, OPERATOR_DOMAIN, '127.0.0.4');
      expect(page.status).toBe(200);
      expect(page.body).toContain('observed site');
      expect(page.cert.subjectaltname).toContain(`DNS:${OPERATOR_DOMAIN}`);
    });

    it('gets a certificate and the site for a DNSSEC-bound customer domain', async () => {
      const page = await getTls(caddy, TXT_DOMAIN, '127.0.0.5');
      expect(page.status).toBe(200);
      expect(page.body).toContain('observed site');
      expect(page.cert.subjectaltname).toContain(`DNS:${TXT_DOMAIN}`);
    });

    it('gets a certificate for a site label under the suffix', async () => {
      const page = await getTls(caddy, `${label}.${SUFFIX}`, '127.0.0.5');
      expect(page.status).toBe(200);
      expect(page.cert.subjectaltname).toContain(`DNS:${label}.${SUFFIX}`);
    });

    it('gets no certificate for a name the gateway does not serve', async () => {
      await expect(getTls(caddy, 'unbound.customer.test', '127.0.0.4')).rejects.toThrow(
        NO_CERTIFICATE,
      );
      await expect(getTls(caddy, 'other.example.test', '127.0.0.4')).rejects.toThrow(
        NO_CERTIFICATE,
      );
    });

    it('meters and logs the real client address, not Caddy’s', async () => {
      const statuses: number[] = [];
      for (let i = 0; i < SITE_BUDGET + 1; i++) {
        statuses.push((await getTls(caddy, OPERATOR_DOMAIN, '127.0.0.2')).status);
      }
      expect(statuses).toEqual([...Array<number>(SITE_BUDGET).fill(200), 429]);
      // Another client through the same proxy still has its whole budget.
      expect((await getTls(caddy, OPERATOR_DOMAIN, '127.0.0.3')).status).toBe(200);
      const lines = await linesOf(gw, '127.0.0.2', statuses.length);
      expect(lines.map((l) => l.status)).toEqual(statuses);
      expect(lines.every((l) => l.kind === 'site')).toBe(true);
      const refusals = sample(
        await metricsText(gw),
        'tape_metering_refusals_total',
        'budget="site"',
      );
      expect(refusals).toBeGreaterThanOrEqual(1);
    });
  });
});
