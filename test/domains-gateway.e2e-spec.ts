import { request } from 'node:http';
import { DnssecLab } from './support/labs/dnssec-lab';
import { startGateway, GatewayProcess } from './support/processes/gateway';
import { LedgerSite, publishOnFreshLedger } from './support/labs/ledger-site';
import { createSocket, Socket } from 'node:dgram';

/** GET with an explicit Host header (fetch will not let a test set Host). */
function get(
  port: number,
  host: string,
  path = '/',
): Promise<{ status: number; body: string; ms: number }> {
  const started = Date.now();
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, headers: { host } }, (res) => {
      let body = '';
      res.on('data', (d: Buffer) => (body += d.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body, ms: Date.now() - started }));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('customer domains bound by DNSSEC TXT records, served by the gateway', () => {
  let lab: DnssecLab;
  let gw: GatewayProcess;
  let blackholeGw: GatewayProcess;
  let blackhole: Socket;
  let ledger: LedgerSite;
  let tape: string;
  let label: string;

  beforeAll(async () => {
    // Publish a site first, to learn its tape address for the TXT record.
    ledger = await publishOnFreshLedger('tape-domains-', {
      'index.html': '<!doctype html><title>bound</title><h1>customer domain</h1>',
      'docs/index.html': '<h1>docs</h1>',
    });
    ({ tape, label } = ledger);

    lab = await DnssecLab.start([
      { origin: 'example.test', signed: true, records: [`_tape.site 300 IN TXT "${tape}"`] },
      { origin: 'plain.test', signed: false, records: [`_tape.site 300 IN TXT "${tape}"`] },
    ]);
    const site = { txt_domains: true, dns_resolvers: [lab.resolverAddress], dns_timeout_ms: 500 };
    gw = await startGateway({ dataDir: ledger.dir, config: { gateway: { site } } });

    blackhole = createSocket('udp4');
    await new Promise<void>((r) => blackhole.bind(0, '127.0.0.1', () => r()));
    const deadResolver = `127.0.0.1:${blackhole.address().port}`;
    blackholeGw = await startGateway({
      rpcUrl: gw.rpcUrl,
      dataDir: ledger.dir,
      config: {
        gateway: { site: { ...site, dns_resolvers: [deadResolver], dns_timeout_ms: 3000 } },
      },
    });
  }, 120000);

  afterAll(async () => {
    await blackholeGw?.stop();
    await gw?.stop();
    await lab?.stop();
    blackhole?.close();
    ledger?.remove();
  });

  it('serves the bound site at the domain root, with the site mapping', async () => {
    const root = await get(gw.port, 'site.example.test');
    expect(root.status).toBe(200);
    expect(root.body).toContain('customer domain');
    expect((await get(gw.port, 'SITE.Example.TEST.:443', '/docs/')).body).toContain('docs');
    expect((await get(gw.port, 'site.example.test', '/docs')).status).toBe(308);
    expect((await get(gw.port, 'site.example.test', '/missing.png')).status).toBe(404);
  });

  it('does not bind an unsigned zone or a name without a record', async () => {
    expect((await get(gw.port, 'site.plain.test')).status).toBe(404);
    expect((await get(gw.port, 'other.example.test')).status).toBe(404);
  });

  it('answers 400 to invalid hosts and keeps the gateway routes on its own host', async () => {
    expect((await get(gw.port, 'a..b.example.test')).status).toBe(400);
    expect((await get(gw.port, '127.0.0.1', '/healthz')).status).toBe(200);
    expect((await get(gw.port, `${label}.localhost`)).body).toContain('customer domain');
  });

  it('a resolver that never answers: not served, quickly, and the gateway stays responsive', async () => {
    const [bound, health, byLabel] = await Promise.all([
      get(blackholeGw.port, 'site.example.test'),
      get(blackholeGw.port, '127.0.0.1', '/healthz'),
      get(blackholeGw.port, `${label}.localhost`),
    ]);
    // The lookup waits for the whole resolver timeout (3 s) and then gives up, while requests
    // that need no DNS are answered meanwhile, not queued behind it.
    expect(bound.status).toBe(404);
    expect(bound.ms).toBeGreaterThanOrEqual(2900);
    expect(bound.ms).toBeLessThan(10000);
    expect(health.status).toBe(200);
    expect(byLabel.status).toBe(200);
    expect(Math.max(health.ms, byLabel.ms)).toBeLessThan(bound.ms - 1000);
  });
});
