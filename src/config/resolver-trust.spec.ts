import { ConfigError } from './config-error';
import { parseResolverAddress, ResolverAddress, systemResolvers } from './resolver-address';
import { assertResolversTrusted, isLoopbackResolver } from './resolver-trust';

const at = (text: string): ResolverAddress => {
  const address = parseResolverAddress(text);
  if (!address) throw new Error(`bad test address ${text}`);
  return address;
};

const on = { txtDomains: true, trusted: false, fromResolvConf: false };

describe('isLoopbackResolver', () => {
  it('accepts 127.0.0.0/8, ::1 and IPv4-mapped loopback', () => {
    for (const text of ['127.0.0.1', '127.0.0.53:53', '127.255.0.9:5353', '[::1]:53', '::1']) {
      expect(isLoopbackResolver(at(text))).toBe(true);
    }
    expect(isLoopbackResolver({ host: '::ffff:127.0.0.1', port: 53, family: 6 })).toBe(true);
  });

  it('refuses every other address, private ones included', () => {
    for (const text of ['10.255.255.53', '192.168.1.1', '8.8.8.8', '[2001:db8::1]:53', '0.0.0.0']) {
      expect(isLoopbackResolver(at(text))).toBe(false);
    }
    expect(isLoopbackResolver({ host: 'fe80::1%eth0', port: 53, family: 6 })).toBe(false);
    expect(isLoopbackResolver({ host: '::ffff:10.0.0.1', port: 53, family: 6 })).toBe(false);
  });
});

describe('assertResolversTrusted', () => {
  it('accepts loopback resolvers, v4 and v6, with txt_domains on', () => {
    expect(() => assertResolversTrusted([at('127.0.0.1:5353'), at('[::1]:53')], on)).not.toThrow();
  });

  it('refuses a remote resolver with one line naming the entry and the trust key', () => {
    const run = () => assertResolversTrusted([at('127.0.0.1'), at('192.0.2.7:53')], on);
    expect(run).toThrow(ConfigError);
    expect(run).toThrow(
      'config error: gateway.site.dns_resolvers[1]: 192.0.2.7:53 is not on loopback; with ' +
        'gateway.site.txt_domains on, DNSSEC answers are trusted only from a local validating ' +
        'resolver (docs/domains.md) or with gateway.site.dns_resolvers_trusted: true',
    );
  });

  it('refuses a remote resolver taken from /etc/resolv.conf, saying so', () => {
    const resolvers = systemResolvers('nameserver 10.255.255.53\n');
    expect(() => assertResolversTrusted(resolvers, { ...on, fromResolvConf: true })).toThrow(
      /^config error: gateway\.site\.dns_resolvers: \/etc\/resolv\.conf names 10\.255\.255\.53:53 is not on loopback;/,
    );
  });

  it('accepts a remote resolver the operator marked trusted', () => {
    expect(() =>
      assertResolversTrusted([at('192.0.2.7:53'), at('[2001:db8::1]:53')], {
        ...on,
        trusted: true,
      }),
    ).not.toThrow();
  });

  it('does not care about resolvers while txt_domains is off', () => {
    expect(() =>
      assertResolversTrusted([at('192.0.2.7')], { ...on, txtDomains: false }),
    ).not.toThrow();
  });
});
