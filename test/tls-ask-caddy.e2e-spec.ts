import { Keypair } from '@solana/web3.js';
import { labelFromAddress } from '../src/chain/tape-label';
import { getTls, NO_CERTIFICATE, startCaddyFor, CaddyProcess } from './support/processes/caddy';
import { CliUser, keyValues } from './support/clients/cli';
import { removeSite, writeSite } from './support/fixtures/site-dir';
import { ACROSS_PROCESSES, eventually } from './support/jest/eventually';
import { GatewayProcess, startGateway } from './support/processes/gateway';
import { metricsText, sample } from './support/clients/metrics-text';
import { siteGet } from './support/clients/site-http';

/**
 * Issue 34, finding 1, on real processes: Caddy running deploy/Caddyfile (on-demand TLS from its
 * internal CA) asks the built gateway's admin listener before each new name. Only the label of a
 * tape that exists and is active gets a certificate; random labels (which used to get one each,
 * spending the CA's weekly budget for the operator's domain) and an expired tape's label do not;
 * fresh decisions past the endpoint's rate answer 429.
 */
jest.setTimeout(240_000);

const SUFFIX = 'sites.test';
/** Short epochs so a tape can expire during the test. */
const EPOCH_SECS = 2;

const randomLabel = () => `${labelFromAddress(Keypair.generate().publicKey)}.${SUFFIX}`;

describe('on-demand TLS asks the gateway, which checks the chain (issue 34, finding 1)', () => {
  let gw: GatewayProcess;
  let caddy: CaddyProcess;
  let user: CliUser;
  let siteDir: string;
  let liveHost: string;
  let expiredHost: string;

  const ask = async (domain: string): Promise<number> =>
    (await fetch(`${gw.adminUrl}/tls/ask?domain=${encodeURIComponent(domain)}`)).status;
  const refusals = async (reason: string): Promise<number> =>
    sample(await metricsText(gw), 'tape_tls_ask_refusals_total', `reason="${reason}"`);

  beforeAll(async () => {
    gw = await startGateway({
      env: { TAPE__LOCALNET__EPOCH_DURATION_SECS: String(EPOCH_SECS) },
      config: { gateway: { site: { subdomain_suffix: SUFFIX } } },
    });
    user = new CliUser(gw);
    await user.fundedWallet();
    // A tape that expires within a few seconds, then one that lives long with a site on it.
    const shortLived = keyValues(await user.ok(['create', '--capacity', '1m', '--epochs', '2']));
    expiredHost = `${shortLived.label}.${SUFFIX}`;
    const live = keyValues(await user.ok(['create', '--capacity', '1m', '--epochs', '100000']));
    liveHost = `${live.label}.${SUFFIX}`;
    siteDir = writeSite({ 'index.html': '<!doctype html><title>t</title><h1>live site</h1>' });
    await user.ok(['deploy', `${siteDir}/index.html`]);
    caddy = await startCaddyFor(gw, { siteSuffix: SUFFIX });
  });

  afterAll(async () => {
    await caddy?.stop();
    await gw?.stop();
    user?.cleanup();
    if (siteDir) removeSite(siteDir);
  });

  it('gets no certificate for random labels: the TLS handshake fails', async () => {
    const before = await refusals('no-tape');
    for (let i = 0; i < 5; i++) {
      await expect(getTls(caddy, randomLabel())).rejects.toThrow(NO_CERTIFICATE);
    }
    expect(await refusals('no-tape')).toBeGreaterThanOrEqual(before + 5);
    expect(caddy.logs()).not.toMatch(/certificate obtained successfully/);
  });

  it('gets a certificate and the site for the label of an existing, active tape', async () => {
    const page = await getTls(caddy, liveHost);
    expect(page.status).toBe(200);
    expect(page.body).toContain('live site');
    expect(page.cert.subjectaltname).toBe(`DNS:${liveHost}`);
    // The log line the first test looks for is the one Caddy writes for an issued certificate.
    await eventually('Caddy logged the certificate', () =>
      /certificate obtained successfully/.test(caddy.logs()),
    );
  });

  it('gets no certificate for the label of an expired tape', async () => {
    // The site route says the tape is gone before Caddy is sent there.
    await eventually(
      'the short-lived tape expired',
      async () => (await siteGet(gw.url, '/', { host: expiredHost })).status === 410,
      ACROSS_PROCESSES,
    );
    const before = await refusals('expired');
    await expect(getTls(caddy, expiredHost)).rejects.toThrow(NO_CERTIFICATE);
    expect(await refusals('expired')).toBeGreaterThanOrEqual(before + 1);
  });

  it('answers fresh asks past its rate with 429 while known names still get their answer', async () => {
    // More new names at once than the default burst (20) holds.
    const statuses = await Promise.all(Array.from({ length: 40 }, () => ask(randomLabel())));
    expect(statuses.filter((s) => s !== 404 && s !== 429)).toEqual([]);
    expect(statuses.filter((s) => s === 429).length).toBeGreaterThanOrEqual(15);
    expect(await refusals('rate-limited')).toBeGreaterThanOrEqual(15);
    // Remembered answers cost no lookup: the live label is still approved, the expired one not.
    expect(await ask(liveHost)).toBe(200);
    expect(await ask(expiredHost)).toBe(404);
  });
});
