import { readFileSync } from 'node:fs';
import { isPublicKey } from './chain.config';
import { ConfigError } from './config-error';
import { parseHost, validateName } from './host-name';
import { OriginList, parseOriginList } from './origin';
import { configuredResolvers, ResolverAddress } from './resolver-address';
import { assertResolversTrusted } from './resolver-trust';
import { SiteConfig } from './site.config';

/**
 * The checks of `gateway.site.*` that span several keys or need a parser of names: run once
 * when the configuration is validated (config-loader.ts), each failing with one line naming the
 * key. The rooms that use these settings call the same functions for the parsed values.
 */
export function checkSiteConfig(site: SiteConfig): void {
  siteDomains(site);
  subdomainSuffix(site);
  gatewayOrigins(site, 'cors_origins');
  gatewayOrigins(site, 'connect_origins');
  checkPathIsolation(site);
  // The resolvers named here; those of /etc/resolv.conf are checked by loadConfig.
  if (site.dns_resolvers.length > 0) siteResolvers(site, '');
}

/** `gateway.site.domains`: each host name (normal form) and the tape it serves. */
export function siteDomains(site: SiteConfig): Map<string, string> {
  const domains = new Map<string, string>();
  for (const [key, value] of Object.entries(site.domains ?? {})) {
    const where = `gateway.site.domains["${key}"]`;
    const name = validateName(key);
    if (typeof name !== 'string') {
      throw new ConfigError(`config error: ${where}: not a host name (${name.reason})`);
    }
    const tape = typeof value === 'string' ? value.trim() : '';
    if (!isPublicKey(tape)) {
      throw new ConfigError(
        `config error: ${where}: ${JSON.stringify(value)} is not a tape address`,
      );
    }
    const existing = domains.get(name);
    if (existing !== undefined && existing !== tape) {
      throw new ConfigError(`config error: ${where}: ${name} is mapped to two different tapes`);
    }
    domains.set(name, tape);
  }
  return domains;
}

/** `gateway.site.subdomain_suffix` as a host name (no port); null when subdomains are off. */
export function subdomainSuffix(site: SiteConfig): string | null {
  const text = site.subdomain_suffix ?? '';
  if (text.trim() === '') return null;
  const host = parseHost(text.trim());
  if (host.kind === 'invalid') {
    throw new ConfigError(
      `config error: gateway.site.subdomain_suffix: "${text}" is not host or host:port (${host.reason})`,
    );
  }
  return host.name;
}

/** The operator's origin lists must be right: a wrong entry is named, never dropped. */
export function gatewayOrigins(
  site: SiteConfig,
  key: 'cors_origins' | 'connect_origins',
): OriginList {
  const list = parseOriginList(site[key], true);
  if (list.dropped.length > 0) {
    throw new ConfigError(`config error: gateway.site.${key}${list.dropped[0]}`);
  }
  return list;
}

/** `redirect` sends path routes to `<label>.<subdomain_suffix>`: it needs a suffix. */
export function checkPathIsolation(site: SiteConfig): void {
  if (site.path_isolation === 'redirect' && (site.subdomain_suffix ?? '').trim() === '') {
    throw new ConfigError(
      'config error: gateway.site.path_isolation is redirect but gateway.site.subdomain_suffix is empty',
    );
  }
}

/**
 * The validating resolvers TXT bindings are asked: `gateway.site.dns_resolvers`, else the
 * `nameserver` lines of `resolvConf`; with `txt_domains` on, on loopback unless trusted.
 */
export function siteResolvers(site: SiteConfig, resolvConf: string): ResolverAddress[] {
  const resolvers = configuredResolvers(site.dns_resolvers, resolvConf);
  assertResolversTrusted(resolvers, {
    txtDomains: site.txt_domains,
    trusted: site.dns_resolvers_trusted,
    fromResolvConf: site.dns_resolvers.length === 0,
  });
  return resolvers;
}

const RESOLV_CONF = '/etc/resolv.conf';

/** This host's resolver configuration; empty when there is none. */
export function readResolvConf(): string {
  try {
    return readFileSync(RESOLV_CONF, 'utf8');
  } catch {
    return '';
  }
}
