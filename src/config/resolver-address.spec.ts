import { configuredResolvers, parseResolverAddress, systemResolvers } from './resolver-address';

describe('parseResolverAddress', () => {
  it('reads ip, ip:port, [v6]:port and bare v6', () => {
    expect(parseResolverAddress('127.0.0.1')).toEqual({ host: '127.0.0.1', port: 53, family: 4 });
    expect(parseResolverAddress('127.0.0.1:5353')).toEqual({
      host: '127.0.0.1',
      port: 5353,
      family: 4,
    });
    expect(parseResolverAddress('[::1]:53')).toEqual({ host: '::1', port: 53, family: 6 });
    expect(parseResolverAddress('[::1]')).toEqual({ host: '::1', port: 53, family: 6 });
    expect(parseResolverAddress('2001:db8::1')).toEqual({
      host: '2001:db8::1',
      port: 53,
      family: 6,
    });
  });

  it('refuses names, bad ports and garbage', () => {
    for (const bad of [
      '',
      'dns.example',
      'dns.example:53',
      '127.0.0.1:0',
      '127.0.0.1:65536',
      '127.0.0.1:',
      '127.0.0.1:53x',
      '[127.0.0.1]:53',
      '[::1',
      '::1:53:',
      '1.2.3',
    ]) {
      expect(parseResolverAddress(bad)).toBeNull();
    }
  });
});

describe('configuredResolvers', () => {
  it('fails fast naming the wrong entry', () => {
    expect(() => configuredResolvers(['127.0.0.1', 'resolver.example'], '')).toThrow(
      'config error: gateway.site.dns_resolvers[1]: "resolver.example" is not ip, ip:port or [ipv6]:port',
    );
  });

  it('uses the system resolvers when none are configured', () => {
    const conf = [
      '# comment',
      'search example',
      'nameserver 10.0.0.2',
      'nameserver fe80::1%eth0',
      '  nameserver   ::1',
      'nameserver 10.0.0.9',
      'nameserver not-an-ip',
    ].join('\n');
    expect(configuredResolvers([], conf)).toEqual([
      { host: '10.0.0.2', port: 53, family: 4 },
      { host: 'fe80::1%eth0', port: 53, family: 6 },
      { host: '::1', port: 53, family: 6 },
    ]);
    expect(systemResolvers('')).toEqual([{ host: '127.0.0.1', port: 53, family: 4 }]);
  });
});
