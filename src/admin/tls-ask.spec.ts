import { Test } from '@nestjs/testing';
import { Keypair } from '@solana/web3.js';
import { ChainError } from '../chain/chain-error';
import { TapeLife } from '../chain/tape-life';
import { labelFromAddress } from '../chain/tape-label';
import { validateConfig } from '../config/config-loader';
import { ConfigModule } from '../config/config.module';
import { Clock, ManualClock } from '../domains/clock';
import { DomainsModule } from '../domains/domains.module';
import { TxtLookup, TxtLookupResult } from '../domains/txt-lookup';
import { TapeLiveness } from './tape-liveness';
import { TlsAsk } from './tls-ask';

const newTape = () => Keypair.generate().publicKey.toBase58();
const SUFFIX = 'sites.example.com';
const labelHost = (tape: string) => `${labelFromAddress(tape)}.${SUFFIX}`;

/** Tapes from a table (absent: no such tape); records every tape read; can be made to fail. */
class TableLiveness extends TapeLiveness {
  readonly reads: string[] = [];
  readonly tapes = new Map<string, TapeLife>();
  failing = false;
  async of(tape: string): Promise<TapeLife> {
    this.reads.push(tape);
    await Promise.resolve();
    if (this.failing) throw new ChainError('unreachable', 'rpc down');
    return this.tapes.get(tape) ?? { kind: 'unknown' };
  }
}

class TableTxtLookup extends TxtLookup {
  readonly table = new Map<string, TxtLookupResult>();
  async lookup(name: string): Promise<TxtLookupResult> {
    return this.table.get(name) ?? { kind: 'miss', reason: 'nxdomain' };
  }
}

async function newTestAsk(
  options: { site?: Record<string, unknown>; tlsAsk?: Record<string, unknown> } = {},
) {
  const config = validateConfig({
    gateway: {
      site: { subdomain_suffix: SUFFIX, txt_domains: true, ...options.site },
      admin: { tls_ask: options.tlsAsk ?? {} },
    },
  });
  const clock = new ManualClock();
  const chain = new TableLiveness();
  const dns = new TableTxtLookup();
  const moduleRef = await Test.createTestingModule({
    imports: [ConfigModule.forRoot(config), DomainsModule],
    providers: [TlsAsk, { provide: TapeLiveness, useValue: chain }],
  })
    .overrideProvider(Clock)
    .useValue(clock)
    .overrideProvider(TxtLookup)
    .useValue(dns)
    .compile();
  const sut = moduleRef.get(TlsAsk);
  const status = async (domain: string | null) => (await sut.ask(domain)).status;
  return { sut, status, chain, dns, clock };
}

const ACTIVE: TapeLife = { kind: 'active', expiresInMs: 3_600_000 };

describe('TlsAsk (issue 34, finding 1)', () => {
  it('approves the label of an existing active tape and nothing for a random or expired one', async () => {
    const { status, chain } = await newTestAsk();
    const active = newTape();
    const expired = newTape();
    chain.tapes.set(active, ACTIVE);
    chain.tapes.set(expired, { kind: 'expired' });
    expect(await status(labelHost(active))).toBe(200);
    expect(await status(labelHost(newTape()))).toBe(404);
    expect(await status(labelHost(expired))).toBe(404);
    expect(chain.reads).toHaveLength(3);
  });

  it('approves operator domains without reading the chain; refuses non-labels and non-hosts', async () => {
    const operatorTape = newTape();
    const { status, chain } = await newTestAsk({
      site: { domains: { 'docs.example.org': operatorTape } },
    });
    expect(await status('docs.example.org')).toBe(200);
    expect(await status(`not-a-label.${SUFFIX}`)).toBe(404);
    expect(await status('127.0.0.1')).toBe(400);
    expect(await status('a..b')).toBe(400);
    expect(await status(null)).toBe(400);
    expect(await status('')).toBe(400);
    expect(chain.reads).toEqual([]);
  });

  it('approves a DNSSEC-bound domain only while its tape exists and is active', async () => {
    const { status, chain, dns } = await newTestAsk();
    const active = newTape();
    chain.tapes.set(active, ACTIVE);
    const bind = (host: string, tape: string) =>
      dns.table.set(`_tape.${host}`, { kind: 'records', records: [[Buffer.from(tape)]], ttl: 300 });
    bind('shop.example.net', active);
    bind('gone.example.net', newTape());
    expect(await status('shop.example.net')).toBe(200);
    expect(await status('gone.example.net')).toBe(404);
    expect(await status('unbound.example.net')).toBe(404);
    expect(chain.reads).toHaveLength(2);
  });

  it('remembers a refusal for refused_ttl_secs, then asks the chain again', async () => {
    const { status, chain, clock } = await newTestAsk({ tlsAsk: { refused_ttl_secs: 60 } });
    const tape = newTape();
    expect(await status(labelHost(tape))).toBe(404);
    chain.tapes.set(tape, ACTIVE); // created (or extended) meanwhile
    clock.advanceSecs(59);
    expect(await status(labelHost(tape))).toBe(404);
    expect(chain.reads).toHaveLength(1);
    clock.advanceSecs(2);
    expect(await status(labelHost(tape))).toBe(200);
    expect(chain.reads).toHaveLength(2);
  });

  it('remembers an approval for approved_ttl_secs but never past the tape’s expiry', async () => {
    const { status, chain, clock } = await newTestAsk({ tlsAsk: { approved_ttl_secs: 300 } });
    const tape = newTape();
    chain.tapes.set(tape, { kind: 'active', expiresInMs: 10_000 });
    expect(await status(labelHost(tape))).toBe(200);
    clock.advanceSecs(9);
    expect(await status(labelHost(tape))).toBe(200);
    expect(chain.reads).toHaveLength(1);
    chain.tapes.set(tape, { kind: 'expired' });
    clock.advanceSecs(2);
    expect(await status(labelHost(tape))).toBe(404);
    expect(chain.reads).toHaveLength(2);
  });

  it('rate-limits fresh decisions with 429 (not remembered) while remembered answers still come', async () => {
    const { status, chain, clock } = await newTestAsk({
      tlsAsk: { lookup_burst: 3, lookups_per_minute: 60 },
    });
    const known = newTape();
    chain.tapes.set(known, ACTIVE);
    expect(await status(labelHost(known))).toBe(200);
    expect(await status(labelHost(newTape()))).toBe(404);
    expect(await status(labelHost(newTape()))).toBe(404);
    const limited = newTape();
    chain.tapes.set(limited, ACTIVE);
    expect(await status(labelHost(limited))).toBe(429);
    expect(await status(labelHost(newTape()))).toBe(429);
    expect(chain.reads).toHaveLength(3);
    // Remembered answers cost no token.
    expect(await status(labelHost(known))).toBe(200);
    // One token a second at 60 a minute; the 429 was not remembered.
    clock.advanceSecs(1);
    expect(await status(labelHost(limited))).toBe(200);
    expect(await status(labelHost(newTape()))).toBe(429);
    expect(chain.reads).toHaveLength(4);
  });

  it('refuses with 503 when the chain cannot be read, and asks again next time', async () => {
    const { status, chain } = await newTestAsk();
    const tape = newTape();
    chain.tapes.set(tape, ACTIVE);
    chain.failing = true;
    expect(await status(labelHost(tape))).toBe(503);
    chain.failing = false;
    expect(await status(labelHost(tape))).toBe(200);
    expect(chain.reads).toHaveLength(2);
  });

  it('shares one chain read among concurrent asks for one name', async () => {
    const { status, chain } = await newTestAsk({ tlsAsk: { lookup_burst: 1 } });
    const tape = newTape();
    chain.tapes.set(tape, ACTIVE);
    const answers = await Promise.all(Array.from({ length: 20 }, () => status(labelHost(tape))));
    expect(answers).toEqual(Array<number>(20).fill(200));
    expect(chain.reads).toEqual([tape]);
  });

  it('keeps at most cache_entries answers', async () => {
    const { status, chain } = await newTestAsk({ tlsAsk: { cache_entries: 2 } });
    const tapes = [newTape(), newTape(), newTape()];
    for (const tape of tapes) await status(labelHost(tape));
    await status(labelHost(tapes[0])); // dropped first, so read again
    await status(labelHost(tapes[2])); // still remembered
    expect(chain.reads).toEqual([...tapes, tapes[0]]);
  });

  it('counts approvals and refusals by reason', async () => {
    const { sut, status, chain } = await newTestAsk({ tlsAsk: { lookup_burst: 2 } });
    const expired = newTape();
    chain.tapes.set(expired, { kind: 'expired' });
    await status(labelHost(expired));
    await status(labelHost(newTape()));
    await status(labelHost(newTape()));
    await status('a..b');
    await status(`www.${SUFFIX}`);
    expect(sut.stats()).toEqual({
      approved: 0,
      refused: {
        invalid: 1,
        'no-site': 1,
        'no-tape': 1,
        expired: 1,
        'rate-limited': 1,
        unavailable: 0,
      },
    });
  });
});
