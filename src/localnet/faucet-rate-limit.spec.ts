import { Keypair } from '@solana/web3.js';
import { FaucetRateLimit, FaucetRateLimited, FaucetRateLimits } from './faucet-rate-limit';

function newLimit(overrides: Partial<FaucetRateLimits> = {}) {
  const clock = { ms: 0 };
  const sut = new FaucetRateLimit(
    {
      perIp: { burst: 3, perMinute: 1 },
      perRecipient: { burst: 2, perMinute: 1 },
      unlimitedIps: [],
      maxKeys: 1000,
      ...overrides,
    },
    () => clock.ms,
  );
  return { sut, clock };
}

const someone = () => Keypair.generate().publicKey;

describe('FaucetRateLimit', () => {
  it('refuses a client past its burst with agave-style wording and the time to wait', () => {
    const { sut } = newLimit();
    for (let i = 0; i < 3; i++) sut.admit('203.0.113.5', someone());
    let refusal: unknown;
    try {
      sut.admit('203.0.113.5', someone());
    } catch (err) {
      refusal = err;
    }
    expect(refusal).toBeInstanceOf(FaucetRateLimited);
    expect((refusal as FaucetRateLimited).message).toBe(
      'IP limit reached; ip: 203.0.113.5 cap: 3 faucet requests, then 1 per minute; retry in 60 s',
    );
    expect((refusal as FaucetRateLimited).retryAfterSecs).toBe(60);
  });

  it('leaves other clients alone while one is limited', () => {
    const { sut } = newLimit();
    for (let i = 0; i < 3; i++) sut.admit('203.0.113.5', someone());
    expect(() => sut.admit('203.0.113.5', someone())).toThrow(FaucetRateLimited);
    expect(() => sut.admit('203.0.113.6', someone())).not.toThrow();
  });

  it('limits one recipient across clients, leaving other recipients alone', () => {
    const { sut } = newLimit();
    const target = someone();
    sut.admit('198.51.100.1', target);
    sut.admit('198.51.100.2', target);
    expect(() => sut.admit('198.51.100.3', target)).toThrow(
      `address limit reached; to: ${target.toBase58()} cap: 2 faucet requests, then 1 per minute; retry in 60 s`,
    );
    expect(() => sut.admit('198.51.100.3', someone())).not.toThrow();
  });

  it('grants again once the bucket refilled', () => {
    const { sut, clock } = newLimit();
    for (let i = 0; i < 3; i++) sut.admit('203.0.113.5', someone());
    expect(() => sut.admit('203.0.113.5', someone())).toThrow(FaucetRateLimited);
    clock.ms += 60_000;
    expect(() => sut.admit('203.0.113.5', someone())).not.toThrow();
  });

  it('counts IPv6 clients by /64, so rotating addresses inside it does not help', () => {
    const { sut } = newLimit();
    sut.admit('2001:db8:1:2::1', someone());
    sut.admit('2001:db8:1:2:aaaa::7', someone());
    sut.admit('2001:0db8:0001:0002:ffff:ffff:ffff:ffff', someone());
    expect(() => sut.admit('2001:db8:1:2::99', someone())).toThrow(FaucetRateLimited);
    expect(() => sut.admit('2001:db8:1:3::1', someone())).not.toThrow();
  });

  it('applies no limit to the unlimited addresses', () => {
    const { sut } = newLimit({ unlimitedIps: ['127.0.0.1'] });
    const target = someone();
    for (let i = 0; i < 50; i++) sut.admit('127.0.0.1', target);
    expect(() => sut.admit('127.0.0.2', someone())).not.toThrow();
  });
});
