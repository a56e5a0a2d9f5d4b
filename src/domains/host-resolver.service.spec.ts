import { Logger } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { Keypair } from '@solana/web3.js';
import { labelFromAddress } from '../chain/tape-label';
import { validateConfig } from '../config/config-loader';
import { ConfigModule } from '../config/config.module';
import { Clock, ManualClock } from './clock';
import { DomainsModule } from './domains.module';
import { HostResolverService } from './host-resolver.service';
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
  return { sut: moduleRef.get(HostResolverService), dns, clock };
}

describe('HostResolverService', () => {
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

  it('fails fast at start-up naming a wrong resolver', async () => {
    const config = validateConfig({ gateway: { site: { dns_resolvers: ['dns.example'] } } });
    await expect(
      Test.createTestingModule({
        imports: [ConfigModule.forRoot(config), DomainsModule],
      }).compile(),
    ).rejects.toThrow('config error: gateway.site.dns_resolvers[0]');
  });
});
