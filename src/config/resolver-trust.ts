import { BlockList, isIP } from 'node:net';
import { ConfigError } from './config-error';
import { describeResolver, ResolverAddress } from './resolver-address';

const LOOPBACK = new BlockList();
LOOPBACK.addSubnet('127.0.0.0', 8, 'ipv4');
LOOPBACK.addAddress('::1', 'ipv6');
// IPv4-mapped loopback (::ffff:127.x.y.z) is the same host.
LOOPBACK.addSubnet('::ffff:127.0.0.0', 104, 'ipv6');

/** Whether a resolver address is this host: 127.0.0.0/8, ::1 or ::ffff:127.0.0.0/104. */
export function isLoopbackResolver(address: ResolverAddress): boolean {
  const host = address.host.split('%', 1)[0];
  const family = isIP(host);
  if (family === 4) return LOOPBACK.check(host, 'ipv4');
  if (family === 6) return LOOPBACK.check(host, 'ipv6');
  return false;
}

export interface ResolverTrustPolicy {
  /** `gateway.site.txt_domains`: DNSSEC answers decide which tape a host serves. */
  txtDomains: boolean;
  /** `gateway.site.dns_resolvers_trusted`: the operator vouches for the path to the resolvers. */
  trusted: boolean;
  /** Whether the resolvers came from /etc/resolv.conf (no `gateway.site.dns_resolvers`). */
  fromResolvConf: boolean;
}

/**
 * The gateway trusts the AD flag of its resolvers instead of checking signatures itself, so an
 * on-path attacker between it and a remote resolver could bind any domain to any tape. With
 * TXT bindings on, every resolver must be on loopback unless the operator says the path is
 * trusted; otherwise start-up fails with one line naming the key.
 */
export function assertResolversTrusted(
  resolvers: readonly ResolverAddress[],
  policy: ResolverTrustPolicy,
): void {
  if (!policy.txtDomains || policy.trusted) return;
  const index = resolvers.findIndex((r) => !isLoopbackResolver(r));
  if (index < 0) return;
  const where = policy.fromResolvConf
    ? `gateway.site.dns_resolvers: /etc/resolv.conf names ${describeResolver(resolvers[index])}`
    : `gateway.site.dns_resolvers[${index}]: ${describeResolver(resolvers[index])}`;
  throw new ConfigError(
    `config error: ${where} is not on loopback; with gateway.site.txt_domains on, DNSSEC answers ` +
      'are trusted only from a local validating resolver (docs/domains.md) or with ' +
      'gateway.site.dns_resolvers_trusted: true',
  );
}
