import { Logger } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { Keypair } from '@solana/web3.js';
import { labelFromAddress } from '../chain/tape-label';
import { validateConfig } from '../config/config-loader';
import { SiteConfig } from '../config/site.config';
import { ConfigModule } from '../config/config.module';
import { Clock, ManualClock } from './clock';
import { DomainsModule } from './domains.module';
import { HostRouter, HostRoute } from './host-router';
import { TxtBindingService } from './txt-binding.service';
import { TxtLookup, TxtLookupResult } from './txt-lookup';

const tapeA = Keypair.generate().publicKey.toBase58();
const tapeB = Keypair.generate().publicKey.toBase58();

/** Answers from a table and records every name asked. */
class TableTxtLookup extends TxtLookup {
  readonly asked: string[] = [];
  readonly table = new Map<string, TxtLookupResult>();
  async lookup(name: string): Promise<TxtLookupResult> {
    this.asked.push(name);
    return this.table.get(name) ?? { kind: 'miss', reason: 'nxdomain' };
  }
}

function records(ttl: number, ...values: string[]): TxtLookupResult {
  return { kind: 'records', records: values.map((v) => [Buffer.from(v)]), ttl };
}

async function newTestService(site: Record<string, unknown> = {}) {
  const config = validateConfig({ gateway: { site: { txt_domains: true, ...site } } });
  const dns = new TableTxtLookup();
  const clock = new ManualClock();
  const moduleRef = await Test.createTestingModule({
    imports: [ConfigModule.forRoot(config), DomainsModule],
  })
    .overrideProvider(TxtLookup)
    .useValue(dns)
    .overrideProvider(Clock)
    .useValue(clock)
    .compile();
  return { sut: moduleRef.get(HostRouter), dns, clock };
}

describe('HostRouter.resolve', () => {
  it('resolves operator domains, then subdomain labels, then TXT bindings', async () => {
    const { sut, dns } = await newTestService({ domains: { 'docs.example.com': tapeA } });
    dns.table.set('_tape.shop.example.org', records(300, tapeB));
    expect(await sut.resolve('DOCS.example.com.:443')).toEqual({
      kind: 'tape',
      tape: tapeA,
      via: 'domain',
    });
    expect(await sut.resolve(`${labelFromAddress(tapeB)}.localhost:8080`)).toEqual({
      kind: 'tape',
      tape: tapeB,
      via: 'subdomain',
    });
    expect(await sut.resolve('shop.example.org')).toEqual({
      kind: 'tape',
      tape: tapeB,
      via: 'txt',
    });
    expect(dns.asked).toEqual(['_tape.shop.example.org']);
  });

  it('answers none for unknown hosts, never another site', async () => {
    const { sut } = await newTestService({ domains: { 'docs.example.com': tapeA } });
    expect(await sut.resolve('unknown.example.com')).toEqual({ kind: 'none' });
    expect(await sut.resolve('example.com')).toEqual({ kind: 'none' });
    expect(await sut.resolve('localhost:8080')).toEqual({ kind: 'none' });
  });

  it('reports invalid hosts with the reason', async () => {
    const { sut, dns } = await newTestService();
    expect(await sut.resolve('1.2.3.4')).toEqual({
      kind: 'invalid',
      reason: 'IP literals are not site hosts',
    });
    expect(await sut.resolve('[::1]:80')).toEqual({
      kind: 'invalid',
      reason: 'IP literals are not site hosts',
    });
    expect(await sut.resolve('a..b')).toEqual({ kind: 'invalid', reason: 'empty label' });
    expect(await sut.resolve(undefined)).toEqual({ kind: 'invalid', reason: 'no host' });
    expect(dns.asked).toEqual([]);
  });

  it('never asks DNS about hosts under the suffix, single labels or special-use names', async () => {
    const { sut, dns } = await newTestService();
    for (const host of [
      'www.localhost',
      'a.b.localhost:8080',
      'intranet',
      'printer.local',
      'x.invalid',
      'abc.onion',
      `${'a'.repeat(63)}.${'b'.repeat(63)}.${'c'.repeat(63)}.${'d'.repeat(58)}`,
    ]) {
      expect(await sut.resolve(host)).toEqual({ kind: 'none' });
    }
    expect(dns.asked).toEqual([]);
  });

  it('does not look up TXT bindings when txt_domains is off', async () => {
    const { sut, dns } = await newTestService({ txt_domains: false });
    dns.table.set('_tape.shop.example.org', records(300, tapeB));
    expect(await sut.resolve('shop.example.org')).toEqual({ kind: 'none' });
    expect(dns.asked).toEqual([]);
  });

  it('does not serve a name whose records name two tapes, and logs it', async () => {
    const { sut, dns } = await newTestService();
    const warn = jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
    dns.table.set('_tape.two.example.org', records(300, tapeA, tapeB));
    expect(await sut.resolve('two.example.org')).toEqual({ kind: 'none' });
    expect(warn).toHaveBeenCalledWith(
      expect.objectContaining({ event: 'domain-binding-ambiguous', host: 'two.example.org' }),
    );
    warn.mockRestore();
  });

  it('caches bindings for the clamped TTL and misses for the negative TTL', async () => {
    const { sut, dns, clock } = await newTestService({ dns_negative_ttl_secs: 10 });
    dns.table.set('_tape.shop.example.org', records(5, tapeA));
    await sut.resolve('shop.example.org');
    await sut.resolve('missing.example.org');
    clock.advanceSecs(9);
    await sut.resolve('shop.example.org');
    await sut.resolve('missing.example.org');
    expect(dns.asked).toHaveLength(2);
    clock.advanceSecs(1);
    await sut.resolve('missing.example.org');
    expect(dns.asked).toHaveLength(3);
    clock.advanceSecs(50);
    await sut.resolve('shop.example.org');
    expect(dns.asked).toHaveLength(4);
  });

  it('fails fast at start-up naming a wrong domains entry', async () => {
    await expect(newTestService({ domains: { 'docs.example.com': 'nope' } })).rejects.toThrow(
      'config error: gateway.site.domains["docs.example.com"]: "nope" is not a tape address',
    );
  });

  it('fails fast, when the configuration is validated, naming a wrong resolver', () => {
    expect(() => validateConfig({ gateway: { site: { dns_resolvers: ['dns.example'] } } })).toThrow(
      'config error: gateway.site.dns_resolvers[0]',
    );
  });
});

/** A router over `site` settings; TXT bindings are not consulted by `route`. */
function newTestRouter(over: Partial<SiteConfig> = {}) {
  const site = Object.assign(new SiteConfig(), over);
  return new HostRouter(site, {} as TxtBindingService);
}

const LABEL_A = labelFromAddress(tapeA);
const GATEWAY: HostRoute['kind'] = 'gateway';

describe('HostRouter.route', () => {
  it('keeps the gateway own hosts on the gateway', () => {
    const sut = newTestRouter();
    for (const host of [
      'localhost',
      'localhost:8080',
      '127.0.0.1:8080',
      '[::1]:8080',
      'LOCALHOST.',
    ]) {
      expect([host, sut.route(host).kind]).toEqual([host, GATEWAY]);
    }
    expect(sut.route(undefined).kind).toBe(GATEWAY);
  });

  it('routes <label>.<suffix> to the tape of the label, ignoring case and ports', () => {
    const sut = newTestRouter();
    const route = { kind: 'site', resolution: { kind: 'tape', tape: tapeA, via: 'subdomain' } };
    expect(sut.route(`${LABEL_A}.localhost:8080`)).toEqual(route);
    expect(sut.route(`${LABEL_A.toUpperCase()}.LOCALHOST`)).toEqual(route);
    // Remembered: the same answer again, the same object.
    expect(sut.route(`${LABEL_A}.localhost:8080`)).toBe(sut.route(`${LABEL_A}.localhost:8080`));
  });

  it('answers each Host for itself when Hosts alternate (the last Host is remembered apart)', () => {
    const sut = newTestRouter();
    const site = `${LABEL_A}.localhost:8080`;
    for (const [host, kind] of [
      [site, 'site'],
      ['localhost:8080', GATEWAY],
      [site, 'site'],
      [site, 'site'],
      ['127.0.0.1', GATEWAY],
      ['bad_host.localhost', 'site'],
      ['localhost:8080', GATEWAY],
    ] as const) {
      // A new string each time, as each request's header is.
      expect([host, sut.route(host.split('').join('')).kind]).toEqual([host, kind]);
    }
    expect(sut.route('bad_host.localhost')).toMatchObject({ resolution: { kind: 'invalid' } });
  });

  it('answers no site for other names under the suffix, never DNS', () => {
    const sut = newTestRouter({ subdomain_suffix: 'sites.example.net', txt_domains: true });
    const none = { kind: 'site', resolution: { kind: 'none' } };
    expect(sut.route('www.sites.example.net')).toEqual(none);
    expect(sut.route(`${LABEL_A.slice(1)}.sites.example.net`)).toEqual(none);
    expect(sut.route(`${LABEL_A.slice(0, -1)}b.sites.example.net`)).toEqual(none);
    expect(sut.route(`a.${LABEL_A}.sites.example.net`)).toEqual(none);
    expect(sut.route(`${LABEL_A}.sites.example.net`).kind).toBe('site');
    // The same ending without the dot boundary is not under the suffix: a customer domain.
    expect(sut.route(`${LABEL_A}sites.example.net`).kind).toBe('txt');
    expect(sut.route('sites.example.net').kind).toBe(GATEWAY);
  });

  it('routes operator domains to their tape, even one named like a gateway host', () => {
    const sut = newTestRouter({
      domains: { 'Docs.Example.COM.': tapeA, localhost: ` ${tapeB} ` },
    });
    expect(sut.route('DOCS.example.com.:443')).toEqual({
      kind: 'site',
      resolution: { kind: 'tape', tape: tapeA, via: 'domain' },
    });
    expect(sut.route('localhost:8080')).toEqual({
      kind: 'site',
      resolution: { kind: 'tape', tape: tapeB, via: 'domain' },
    });
    expect(sut.route('x.docs.example.com').kind).toBe(GATEWAY);
  });

  it('prefers an operator domain over a label under the suffix', () => {
    const sut = newTestRouter({ domains: { [`${LABEL_A}.localhost`]: tapeB } });
    expect(sut.route(`${LABEL_A}.localhost`)).toEqual({
      kind: 'site',
      resolution: { kind: 'tape', tape: tapeB, via: 'domain' },
    });
  });

  it('turns subdomains off with an empty suffix', () => {
    expect(newTestRouter({ subdomain_suffix: '' }).route(`${LABEL_A}.localhost`).kind).toBe(
      GATEWAY,
    );
  });

  it('leaves unknown hosts on the gateway unless txt_domains is on', () => {
    expect(newTestRouter().route('customer.example.org').kind).toBe(GATEWAY);
    const txt = newTestRouter({ txt_domains: true });
    expect(txt.route('Customer.Example.org.')).toEqual({
      kind: 'txt',
      name: 'customer.example.org',
    });
    for (const host of ['localhost', '10.1.2.3:8080', '[2001:db8::1]', 'intranet']) {
      expect([host, txt.route(host).kind]).toEqual([host, GATEWAY]);
    }
    expect(txt.route('printer.local')).toEqual({ kind: 'site', resolution: { kind: 'none' } });
  });

  it('counts the suffix host, the public_url host and gateway_hosts as the gateway', () => {
    const sut = newTestRouter({
      subdomain_suffix: 'sites.example.net',
      public_url: 'https://gw.example.net:8443/',
      gateway_hosts: ['gateway.internal'],
      txt_domains: true,
    });
    expect(sut.route('sites.example.net').kind).toBe(GATEWAY);
    expect(sut.route('gw.example.net').kind).toBe(GATEWAY);
    expect(sut.route('gateway.internal').kind).toBe(GATEWAY);
    expect(sut.route('other.internal').kind).toBe('txt');
  });

  it('leaves hostile or empty host values on the gateway routes, saying why', () => {
    const sut = newTestRouter({ txt_domains: true });
    for (const host of ['', ' ', 'a\u0000b.example', 'caf\u00e9.example', 'x'.repeat(400)]) {
      const route = sut.route(host);
      expect([host, route.kind, route.kind !== 'txt' && route.resolution.kind]).toEqual([
        host,
        GATEWAY,
        'invalid',
      ]);
    }
  });

  it('answers a site host that is no host name as invalid, with the reason', () => {
    const sut = newTestRouter({ txt_domains: true });
    expect(sut.route('a_b.example.com')).toEqual({
      kind: 'site',
      resolution: { kind: 'invalid', reason: 'label is not letters, digits and inner hyphens' },
    });
    expect(sut.route(`${LABEL_A}.localhost:0`)).toEqual({
      kind: 'site',
      resolution: { kind: 'invalid', reason: 'invalid port' },
    });
  });

  it('fails fast naming the key of a wrong domain entry or suffix', () => {
    const router = (site: Partial<SiteConfig>) => () => newTestRouter(site);
    expect(router({ domains: { 'docs.example.com': 'not-a-tape' } })).toThrow(
      'config error: gateway.site.domains["docs.example.com"]: "not-a-tape" is not a tape address',
    );
    expect(router({ domains: { 'docs.example.com': 42 as unknown as string } })).toThrow(
      'config error: gateway.site.domains["docs.example.com"]: 42 is not a tape address',
    );
    expect(router({ domains: { 'docs.example.com:443': tapeA } })).toThrow(
      /^config error: gateway\.site\.domains\["docs\.example\.com:443"\]: not a host name/,
    );
    expect(router({ domains: { '1.2.3.4': tapeA } })).toThrow(
      'config error: gateway.site.domains["1.2.3.4"]: not a host name (IP literals are not site hosts)',
    );
    expect(router({ domains: { 'A.example': tapeA, 'a.example.': tapeB } })).toThrow(
      'config error: gateway.site.domains["a.example."]: a.example is mapped to two different tapes',
    );
    expect(router({ subdomain_suffix: 'http://localhost' })).toThrow(
      /^config error: gateway\.site\.subdomain_suffix: "http:\/\/localhost" is not host or host:port/,
    );
    expect(router({ subdomain_suffix: '127.0.0.1:8080' })).toThrow(/subdomain_suffix.*IP literals/);
  });
});

describe('HostRouter: pinned and alias hosts (`v<n>--<label>`, `<alias>--<label>`)', () => {
  const label = labelFromAddress(tapeA);

  it('resolves v<n>--<label> to version n and <alias>--<label> to the alias, under the suffix only', async () => {
    const { sut, dns } = await newTestService();
    expect(await sut.resolve(`v3--${label}.localhost:8080`)).toEqual({
      kind: 'tape',
      tape: tapeA,
      via: 'subdomain',
      selector: { kind: 'pinned', version: 3 },
    });
    expect(await sut.resolve(`pr-12--${label}.localhost`)).toEqual({
      kind: 'tape',
      tape: tapeA,
      via: 'subdomain',
      selector: { kind: 'alias', name: 'pr-12' },
    });
    // Outside the suffix a `--` name is an ordinary customer domain.
    await sut.resolve(`v3--x.example.org`);
    expect(dns.asked).toEqual(['_tape.v3--x.example.org']);
  });

  it('refuses a selector that names no version (400) and a label that is no tape (no site)', async () => {
    const { sut } = await newTestService();
    for (const bad of [`v0--${label}`, `v01--${label}`, `v000--${label}`]) {
      expect((await sut.resolve(`${bad}.localhost`)).kind).toBe('bad-version');
    }
    // `9`-digit numbers do not fit one DNS label with the 52-character label: invalid host.
    expect((await sut.resolve(`v123456789--${label}.localhost`)).kind).toBe('invalid');
    expect(await sut.resolve(`v3--${label.slice(0, 51)}1.localhost`)).toEqual({ kind: 'none' });
    expect(await sut.resolve(`v3--nolabel.localhost`)).toEqual({ kind: 'none' });
  });
});
