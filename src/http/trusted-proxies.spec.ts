import { parseIp } from './ip-address';
import { TrustedProxies } from './trusted-proxies';

describe('TrustedProxies', () => {
  const trusted = TrustedProxies.parse([
    '10.0.0.0/8',
    '192.0.2.1',
    '2001:db8::/32',
    '::1/128',
    '::ffff:198.51.100.0/120',
  ]);
  const contains = (text: string) => trusted.contains(parseIp(text)!);

  it('matches IPv4 ranges and single hosts', () => {
    expect(contains('10.255.1.2')).toBe(true);
    expect(contains('11.0.0.1')).toBe(false);
    expect(contains('192.0.2.1')).toBe(true);
    expect(contains('192.0.2.2')).toBe(false);
  });

  it('matches IPv6 ranges and mapped IPv4 either way', () => {
    expect(contains('2001:db8:ffff::9')).toBe(true);
    expect(contains('2001:db9::1')).toBe(false);
    expect(contains('::1')).toBe(true);
    expect(contains('::2')).toBe(false);
    expect(contains('::ffff:10.1.1.1')).toBe(true);
    expect(contains('198.51.100.77')).toBe(true);
    expect(contains('198.51.101.1')).toBe(false);
  });

  it('takes a socket address as text (the connection cap exempts proxies by it)', () => {
    const proxies = TrustedProxies.parse(['10.0.0.0/8']);
    expect(proxies.containsAddress('::ffff:10.1.1.1')).toBe(true);
    expect(proxies.containsAddress('11.1.1.1')).toBe(false);
    expect(proxies.containsAddress('')).toBe(false);
  });

  it('masks host bits written into a range and treats /0 as everything', () => {
    expect(TrustedProxies.parse(['10.1.2.3/8']).contains(parseIp('10.9.9.9')!)).toBe(true);
    expect(TrustedProxies.parse(['0.0.0.0/0']).contains(parseIp('8.8.8.8')!)).toBe(true);
    expect(TrustedProxies.parse(['::/0']).contains(parseIp('2001:db8::1')!)).toBe(true);
    expect(TrustedProxies.parse(['::/0']).contains(parseIp('8.8.8.8')!)).toBe(false);
    expect(TrustedProxies.parse(['2001:db8:0:1::/63']).contains(parseIp('2001:db8:0:0::9')!)).toBe(
      true,
    );
  });

  it.each([
    '10.0.0.0/33',
    '::/129',
    'nope',
    '10.0.0.0/',
    '10.0.0.0/8/8',
    '10.0.0.0/-1',
    '::ffff:1.2.3.4/95',
  ])('refuses the range %j, naming it', (cidr) => {
    expect(() => TrustedProxies.parse(['10.0.0.0/8', cidr])).toThrow(JSON.stringify(cidr));
  });
});
