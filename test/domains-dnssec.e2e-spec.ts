import { Logger } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { Keypair } from '@solana/web3.js';
import { labelFromAddress } from '../src/chain/tape-label';
import { validateConfig } from '../src/config/config-loader';
import { ConfigModule } from '../src/config/config.module';
import { Clock, ManualClock } from '../src/domains/clock';
import { DomainsModule } from '../src/domains/domains.module';
import { HostRouter } from '../src/domains/host-router';
import { TxtBindingService } from '../src/domains/txt-binding.service';
import { DnsRelay } from './support/fakes/dns-relay';
import { DnssecLab } from './support/labs/dnssec-lab';

/**
 * Customer domains against real DNS: BIND serves a DNSSEC-signed zone and an unsigned one,
 * unbound validates, a counting relay sits between the gateway's resolver and unbound, and the
 * cache runs on a clock the test moves.
 */
const seeded = (n: number) => Keypair.fromSeed(new Uint8Array(32).fill(n)).publicKey.toBase58();
const tapeA = seeded(11);
const tapeB = seeded(12);
const tapeC = seeded(13);
const tapeD = seeded(14);
const padding = ' '.repeat(200);

const SIGNED_RECORDS = [
  'site 300 IN A 127.0.0.1',
  `_tape.site 300 IN TXT "${tapeA}"`,
  `_tape.split 300 IN TXT "${tapeB.slice(0, 20)}" "${tapeB.slice(20)}"`,
  `_tape.short 5 IN TXT "${tapeA}"`,
  `_tape.long 7200 IN TXT "${tapeB}"`,
  `_tape.two 300 IN TXT "${tapeA}"`,
  `_tape.two 300 IN TXT "${tapeB}"`,
  `_tape.tampered 300 IN TXT "${tapeD}"`,
  `_tape.gone 300 IN TXT "${tapeC}"`,
  // Over 512 bytes with its signature: unbound truncates it over UDP.
  `_tape.big 300 IN TXT "${tapeC}" "${padding}" "${padding}"`,
];

async function newResolver(site: Record<string, unknown>) {
  const config = validateConfig({
    gateway: { site: { txt_domains: true, dns_timeout_ms: 1000, ...site } },
  });
  const clock = new ManualClock();
  const moduleRef = await Test.createTestingModule({
    imports: [ConfigModule.forRoot(config), DomainsModule],
  })
    .overrideProvider(Clock)
    .useValue(clock)
    .compile();
  return {
    sut: moduleRef.get(HostRouter),
    bindings: moduleRef.get(TxtBindingService, { strict: false }),
    clock,
  };
}

describe('customer domains bound by DNSSEC-validated TXT records', () => {
  let lab: DnssecLab;
  let relay: DnsRelay;
  let sut: HostRouter;
  let bindings: TxtBindingService;
  let clock: ManualClock;

  beforeAll(async () => {
    lab = await DnssecLab.start([
      {
        origin: 'example.test',
        signed: true,
        records: SIGNED_RECORDS,
        // Signed as tapeD, served as tapeA: the RRSIG no longer matches the data.
        tamper: [{ from: `"${tapeD}"`, to: `"${tapeA}"` }],
      },
      { origin: 'plain.test', signed: false, records: [`_tape.site 300 IN TXT "${tapeA}"`] },
    ]);
    relay = await DnsRelay.start({ upstream: { host: '127.0.0.1', port: lab.resolverPort } });
    ({ sut, bindings, clock } = await newResolver({ dns_resolvers: [relay.address] }));
  });

  afterAll(async () => {
    await relay?.close();
    await lab?.stop();
  });

  it('runs a real validating lab: the signed zone answers with AD, the unsigned one without', async () => {
    const signed = await lab.dig('+dnssec', 'TXT', '_tape.site.example.test');
    expect(signed).toMatch(/flags: qr rd ra ad;/);
    expect(signed).toContain(`"${tapeA}"`);
    expect(signed).toMatch(/RRSIG\s+TXT 13 /);
    const unsigned = await lab.dig('+dnssec', 'TXT', '_tape.site.plain.test');
    expect(unsigned).toMatch(/flags: qr rd ra;/);
    expect(unsigned).toContain(`"${tapeA}"`);
  });

  it('binds a signed TXT record to its tape', async () => {
    expect(await sut.resolve('Site.Example.Test.:443')).toEqual({
      kind: 'tape',
      tape: tapeA,
      via: 'txt',
    });
    expect(await sut.resolve('split.example.test')).toEqual({
      kind: 'tape',
      tape: tapeB,
      via: 'txt',
    });
  });

  it('does not bind an unsigned zone', async () => {
    expect(await sut.resolve('site.plain.test')).toEqual({ kind: 'none' });
    expect(await bindings.lookup('site.plain.test')).toEqual({
      kind: 'unbound',
      reason: 'insecure',
    });
  });

  it('does not bind a record edited after signing (SERVFAIL)', async () => {
    const raw = await lab.dig('+dnssec', 'TXT', '_tape.tampered.example.test');
    expect(raw).toContain('status: SERVFAIL');
    expect(await sut.resolve('tampered.example.test')).toEqual({ kind: 'none' });
    expect(await bindings.lookup('tampered.example.test')).toEqual({
      kind: 'unbound',
      reason: 'servfail',
    });
  });

  it('keeps a short-TTL binding for one minute', async () => {
    const name = '_tape.short.example.test';
    expect(await sut.resolve('short.example.test')).toMatchObject({ tape: tapeA });
    clock.advanceSecs(59);
    expect(await sut.resolve('short.example.test')).toMatchObject({ tape: tapeA });
    expect(relay.count(name)).toBe(1);
    clock.advanceSecs(1);
    expect(await sut.resolve('short.example.test')).toMatchObject({ tape: tapeA });
    expect(relay.count(name)).toBe(2);
  });

  it('keeps a long-TTL binding for one hour at most', async () => {
    const name = '_tape.long.example.test';
    expect(await sut.resolve('long.example.test')).toMatchObject({ tape: tapeB });
    clock.advanceSecs(3599);
    expect(await sut.resolve('long.example.test')).toMatchObject({ tape: tapeB });
    expect(relay.count(name)).toBe(1);
    clock.advanceSecs(1);
    expect(await sut.resolve('long.example.test')).toMatchObject({ tape: tapeB });
    expect(relay.count(name)).toBe(2);
  });

  it('caches NXDOMAIN for the negative TTL', async () => {
    const name = '_tape.nothing.example.test';
    // Counted over UDP: the signed denial (NSEC records and their signatures) may be large
    // enough to come back truncated and be asked again over TCP.
    expect(await sut.resolve('nothing.example.test')).toEqual({ kind: 'none' });
    expect(await bindings.lookup('nothing.example.test')).toEqual({
      kind: 'unbound',
      reason: 'nxdomain',
    });
    clock.advanceSecs(29);
    expect(await sut.resolve('nothing.example.test')).toEqual({ kind: 'none' });
    expect(relay.count(name, 'udp')).toBe(1);
    clock.advanceSecs(1);
    expect(await sut.resolve('nothing.example.test')).toEqual({ kind: 'none' });
    expect(relay.count(name, 'udp')).toBe(2);
  });

  it('serves nothing when the records name two tapes, and logs it', async () => {
    const warn = jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
    try {
      expect(await sut.resolve('two.example.test')).toEqual({ kind: 'none' });
      expect(warn).toHaveBeenCalledWith(
        expect.objectContaining({
          event: 'domain-binding-ambiguous',
          host: 'two.example.test',
          tapes: [tapeA, tapeB].sort(),
        }),
      );
    } finally {
      warn.mockRestore();
    }
  });

  it('retries a truncated answer over TCP', async () => {
    const name = '_tape.big.example.test';
    expect(await sut.resolve('big.example.test')).toEqual({
      kind: 'tape',
      tape: tapeC,
      via: 'txt',
    });
    expect(relay.count(name, 'udp')).toBe(1);
    expect(relay.count(name, 'tcp')).toBe(1);
  });

  it('detaches a removed record after its cached lifetime', async () => {
    expect(await sut.resolve('gone.example.test')).toMatchObject({ tape: tapeC });
    await lab.setRecords(
      'example.test',
      SIGNED_RECORDS.filter((line) => !line.startsWith('_tape.gone ')),
    );
    expect(await lab.dig('TXT', '_tape.gone.example.test')).toContain('status: NXDOMAIN');
    clock.advanceSecs(299);
    expect(await sut.resolve('gone.example.test')).toMatchObject({ tape: tapeC });
    clock.advanceSecs(1);
    expect(await sut.resolve('gone.example.test')).toEqual({ kind: 'none' });
    expect(await bindings.lookup('gone.example.test')).toEqual({
      kind: 'unbound',
      reason: 'nxdomain',
    });
    // The rest of the re-signed zone still binds.
    expect(await sut.resolve('site.example.test')).toMatchObject({ tape: tapeA });
  });

  describe('with a resolver that never answers', () => {
    let blackHole: DnsRelay;

    beforeAll(async () => {
      blackHole = await DnsRelay.start();
      blackHole.mode = 'drop';
    });

    afterAll(async () => {
      await blackHole?.close();
    });

    it('answers none after the timeout while other hosts stay responsive', async () => {
      const { sut: stuck } = await newResolver({
        dns_resolvers: [blackHole.address],
        dns_timeout_ms: 400,
        dns_max_inflight: 8,
        domains: { 'docs.example.com': tapeB },
      });
      const started = Date.now();
      const pending = stuck.resolve('site.example.test');
      let timedOut = false;
      void Promise.resolve(pending).then(() => (timedOut = true));
      const others = Array.from({ length: 7 }, (_, i) =>
        Promise.resolve(stuck.resolve(`other${i}.example.test`)),
      );

      // Hosts the configuration decides answer at once, whatever DNS is doing.
      expect(await stuck.resolve('docs.example.com')).toMatchObject({ tape: tapeB });
      expect(await stuck.resolve(`${labelFromAddress(tapeC)}.localhost`)).toMatchObject({
        tape: tapeC,
      });
      // Past the in-flight cap, random hosts are refused at once instead of queueing.
      const flood = await Promise.all(
        Array.from({ length: 500 }, (_, i) =>
          Promise.resolve(stuck.resolve(`random${i}.example.test`)),
        ),
      );
      expect(flood.every((r) => r.kind === 'none')).toBe(true);
      // All of it before the stuck lookup's timeout: nothing above waited on DNS.
      expect(timedOut).toBe(false);

      expect(await pending).toEqual({ kind: 'none' });
      await Promise.all(others);
      const elapsed = Date.now() - started;
      expect(elapsed).toBeGreaterThanOrEqual(390);
      expect(elapsed).toBeLessThan(1500); // parallel, not one timeout after another
      expect(blackHole.queries.length).toBe(8);
    });

    it('falls back to the next resolver', async () => {
      const { sut: fallback } = await newResolver({
        dns_resolvers: [blackHole.address, relay.address],
        dns_timeout_ms: 300,
      });
      const started = Date.now();
      expect(await fallback.resolve('site.example.test')).toMatchObject({ tape: tapeA });
      expect(Date.now() - started).toBeGreaterThanOrEqual(290);
    });
  });
});
