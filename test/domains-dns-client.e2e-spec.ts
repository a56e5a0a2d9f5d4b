import { DNSSEC_OK } from 'dns-packet';
import { DnsTxtLookup } from '../src/domains/dns-txt-lookup';
import { parseResolverAddress, ResolverAddress } from '../src/config/resolver-address';
import { DnsRelay, replyTo, txtAnswer } from './support/fakes/dns-relay';

/**
 * The DNS client on the wire, against scripted servers on loopback: what it sends, which
 * answers it believes, and when it moves on. The DNSSEC behaviour against real BIND and unbound
 * is in domains-dnssec.e2e-spec.ts.
 */
const NAME = '_tape.shop.example';
const AD_FLAG = 1 << 5;
const RD_FLAG = 1 << 8;

const relays: DnsRelay[] = [];

async function scripted(host?: '127.0.0.1' | '::1'): Promise<DnsRelay> {
  const relay = await DnsRelay.start({ host });
  relays.push(relay);
  return relay;
}

function resolverOf(relay: DnsRelay): ResolverAddress {
  return parseResolverAddress(relay.address)!;
}

function lookupVia(relaysInOrder: DnsRelay[], timeoutMs = 400): DnsTxtLookup {
  return new DnsTxtLookup({ resolvers: relaysInOrder.map(resolverOf), timeoutMs });
}

afterEach(async () => {
  await Promise.all(relays.splice(0).map((relay) => relay.close()));
});

describe('DNS TXT client', () => {
  it('asks with RD and AD set, EDNS with the DO bit, and a fresh random id each time', async () => {
    const server = await scripted();
    server.script = (q) => [replyTo(q, { ad: true, answers: [txtAnswer(NAME, 60, 'x')] })];
    const sut = lookupVia([server]);
    for (let i = 0; i < 8; i++) await sut.lookup(NAME);
    expect(server.queries).toHaveLength(8);
    for (const query of server.queries) {
      expect(query).toMatchObject({ transport: 'udp', name: NAME, type: 'TXT' });
      expect(query.flags & RD_FLAG).toBe(RD_FLAG);
      expect(query.flags & AD_FLAG).toBe(AD_FLAG);
      expect(query.opt).toEqual({ udpPayloadSize: 1232, flags: DNSSEC_OK });
    }
    expect(new Set(server.queries.map((q) => q.id)).size).toBeGreaterThan(1);
  });

  it('believes NOERROR with AD, and nothing without AD', async () => {
    const server = await scripted();
    let ad = true;
    server.script = (q) => [replyTo(q, { ad, answers: [txtAnswer(NAME, 77, 'abc')] })];
    const sut = lookupVia([server]);
    expect(await sut.lookup(NAME)).toEqual({
      kind: 'records',
      records: [[Buffer.from('abc')]],
      ttl: 77,
    });
    ad = false;
    expect(await sut.lookup(NAME)).toEqual({ kind: 'miss', reason: 'insecure' });
  });

  it('ignores answers with the wrong id or question, and takes the real one after them', async () => {
    const server = await scripted();
    server.script = (q) => [
      replyTo(q, { ad: true, id: (q.id! + 1) % 65536, answers: [txtAnswer(NAME, 60, 'spoof')] }),
      replyTo(q, {
        ad: true,
        name: '_tape.evil.example',
        answers: [txtAnswer('_tape.evil.example', 60, 'spoof')],
      }),
      Buffer.from('not dns at all'),
      replyTo(q, { ad: true, answers: [txtAnswer(NAME, 60, 'real')] }),
    ];
    expect(await lookupVia([server]).lookup(NAME)).toEqual({
      kind: 'records',
      records: [[Buffer.from('real')]],
      ttl: 60,
    });
  });

  it('times out when only forged answers come', async () => {
    const server = await scripted();
    server.script = (q) => [
      replyTo(q, { ad: true, id: (q.id! + 1) % 65536, answers: [txtAnswer(NAME, 60, 'spoof')] }),
    ];
    const started = Date.now();
    expect(await lookupVia([server], 300).lookup(NAME)).toEqual({
      kind: 'miss',
      reason: 'timeout',
    });
    expect(Date.now() - started).toBeGreaterThanOrEqual(290);
  });

  it('retries a truncated UDP answer over TCP', async () => {
    const server = await scripted();
    server.script = (q, transport) =>
      transport === 'udp'
        ? [replyTo(q, { ad: true, truncated: true })]
        : [replyTo(q, { ad: true, answers: [txtAnswer(NAME, 60, 'over', 'tcp')] })];
    expect(await lookupVia([server]).lookup(NAME)).toEqual({
      kind: 'records',
      records: [[Buffer.from('over'), Buffer.from('tcp')]],
      ttl: 60,
    });
    expect(server.count(NAME, 'udp')).toBe(1);
    expect(server.count(NAME, 'tcp')).toBe(1);
  });

  it('refuses a TCP answer that does not match the query', async () => {
    const server = await scripted();
    server.script = (q, transport) =>
      transport === 'udp'
        ? [replyTo(q, { ad: true, truncated: true })]
        : [replyTo(q, { ad: true, id: (q.id! + 1) % 65536 })];
    expect(await lookupVia([server]).lookup(NAME)).toEqual({ kind: 'miss', reason: 'network' });
  });

  it('moves to the next resolver after SERVFAIL, REFUSED or silence', async () => {
    const failing = await scripted();
    failing.script = (q) => [replyTo(q, { rcode: 'SERVFAIL' })];
    const refusing = await scripted();
    refusing.script = (q) => [replyTo(q, { rcode: 'REFUSED' })];
    const silent = await scripted();
    silent.mode = 'drop';
    const good = await scripted();
    good.script = (q) => [replyTo(q, { ad: true, answers: [txtAnswer(NAME, 60, 'ok')] })];
    const started = Date.now();
    const result = await lookupVia([failing, refusing, silent, good], 250).lookup(NAME);
    expect(result).toEqual({ kind: 'records', records: [[Buffer.from('ok')]], ttl: 60 });
    expect(Date.now() - started).toBeLessThan(2000);
    expect([failing, refusing, silent, good].map((s) => s.count(NAME))).toEqual([1, 1, 1, 1]);
  });

  it('stops at a final answer (NXDOMAIN, no AD) instead of asking the next resolver', async () => {
    const first = await scripted();
    const second = await scripted();
    second.script = (q) => [replyTo(q, { ad: true, answers: [txtAnswer(NAME, 60, 'x')] })];
    first.script = (q) => [replyTo(q, { rcode: 'NXDOMAIN', ad: true })];
    expect(await lookupVia([first, second]).lookup(NAME)).toEqual({
      kind: 'miss',
      reason: 'nxdomain',
    });
    first.script = (q) => [replyTo(q, { answers: [txtAnswer(NAME, 60, 'x')] })];
    expect(await lookupVia([first, second]).lookup(NAME)).toEqual({
      kind: 'miss',
      reason: 'insecure',
    });
    expect(second.count(NAME)).toBe(0);
  });

  it('reports the last failure when every resolver fails', async () => {
    const silent = await scripted();
    silent.mode = 'drop';
    const failing = await scripted();
    failing.script = (q) => [replyTo(q, { rcode: 'SERVFAIL' })];
    expect(await lookupVia([silent, failing], 200).lookup(NAME)).toEqual({
      kind: 'miss',
      reason: 'servfail',
    });
    expect(await lookupVia([failing, silent], 200).lookup(NAME)).toEqual({
      kind: 'miss',
      reason: 'timeout',
    });
  });

  it('talks to an IPv6 resolver given as [::1]:port', async () => {
    const server = await scripted('::1');
    expect(server.address).toMatch(/^\[::1\]:\d+$/);
    server.script = (q, transport) =>
      transport === 'udp'
        ? [replyTo(q, { ad: true, truncated: true })]
        : [replyTo(q, { ad: true, answers: [txtAnswer(NAME, 60, 'v6')] })];
    expect(await lookupVia([server]).lookup(NAME)).toEqual({
      kind: 'records',
      records: [[Buffer.from('v6')]],
      ttl: 60,
    });
  });

  it('reports a closed port as a network failure', async () => {
    const server = await scripted();
    const port = server.port;
    await server.close();
    relays.splice(relays.indexOf(server), 1);
    const sut = new DnsTxtLookup({
      resolvers: [{ host: '127.0.0.1', port, family: 4 }],
      timeoutMs: 2000,
    });
    const started = Date.now();
    expect(await sut.lookup(NAME)).toEqual({ kind: 'miss', reason: 'network' });
    expect(Date.now() - started).toBeLessThan(1000);
  });
});
