import { isIP } from 'node:net';
import { ConfigError } from './config-error';

/** One validating resolver the gateway asks for `_tape.` TXT records. */
export interface ResolverAddress {
  host: string;
  port: number;
  family: 4 | 6;
}

const DEFAULT_DNS_PORT = 53;
/** glibc reads at most three `nameserver` lines; so do we. */
const MAX_SYSTEM_RESOLVERS = 3;

/** Parses `ip`, `ip:port`, `[v6]:port` or a bare v6 address; null when it is none of them. */
export function parseResolverAddress(text: string): ResolverAddress | null {
  const trimmed = text.trim();
  let host = trimmed;
  let portText: string | undefined;
  const bracketed = /^\[([^\]]+)\](?::([0-9]+))?$/.exec(trimmed);
  if (bracketed) {
    host = bracketed[1];
    portText = bracketed[2];
    if (isIP(host) !== 6) return null;
  } else if (isIP(trimmed) === 0) {
    const colon = trimmed.lastIndexOf(':');
    if (colon < 0 || trimmed.indexOf(':') !== colon) return null;
    host = trimmed.slice(0, colon);
    portText = trimmed.slice(colon + 1);
  }
  const family = isIP(host);
  if (family !== 4 && family !== 6) return null;
  let port = DEFAULT_DNS_PORT;
  if (portText !== undefined) {
    if (!/^[0-9]{1,5}$/.test(portText)) return null;
    port = Number(portText);
    if (port < 1 || port > 65535) return null;
  }
  return { host, port, family };
}

/** The configured resolvers, failing fast with the key of the first wrong entry. */
export function configuredResolvers(entries: string[], resolvConf: string): ResolverAddress[] {
  if (entries.length === 0) return systemResolvers(resolvConf);
  return entries.map((entry, index) => {
    const address = parseResolverAddress(entry);
    if (!address) {
      throw new ConfigError(
        `config error: gateway.site.dns_resolvers[${index}]: "${entry}" is not ip, ip:port or [ipv6]:port`,
      );
    }
    return address;
  });
}

/**
 * The `nameserver` lines of a resolv.conf text; glibc's fallback (the local host) when there
 * are none, so a gateway next to a local validating resolver needs no configuration.
 */
export function systemResolvers(resolvConf: string): ResolverAddress[] {
  const found: ResolverAddress[] = [];
  for (const line of resolvConf.split('\n')) {
    const match = /^\s*nameserver\s+(\S+)/.exec(line);
    if (!match) continue;
    // Scoped link-local addresses (fe80::1%eth0) keep their zone: dgram understands it.
    const [address, zone] = match[1].split('%', 2);
    const family = isIP(address);
    if (family !== 4 && family !== 6) continue;
    found.push({ host: zone ? `${address}%${zone}` : address, port: DEFAULT_DNS_PORT, family });
    if (found.length === MAX_SYSTEM_RESOLVERS) break;
  }
  return found.length > 0 ? found : [{ host: '127.0.0.1', port: DEFAULT_DNS_PORT, family: 4 }];
}

export function describeResolver(address: ResolverAddress): string {
  return address.family === 6
    ? `[${address.host}]:${address.port}`
    : `${address.host}:${address.port}`;
}
