import { addressFromLabel, parseAddress } from '../chain/tape-label';
import { ConfigError } from '../config/config-loader';
import { SiteConfig } from '../config/site.config';
import { HostResolution, NO_SITE } from './host-resolution';
import { parseHost, validateName } from './host-name';

/** Decoded labels remembered, so the hot path does not re-decode base32 on every request. */
const LABEL_MEMO_ENTRIES = 4096;

/**
 * The hosts the operator's configuration decides without DNS: the exact `domains` map and
 * `<label>.<subdomain_suffix>`. Both are checked once at start-up and fail fast naming the key.
 *
 * Ports: a port in `subdomain_suffix` (the default `localhost:8080`) only says where the
 * printed URLs point; routing compares host names and ignores ports on both sides, because
 * behind proxies, CDNs and test harnesses the port a client used is not the one we listen on.
 */
export class StaticHostRoutes {
  private readonly domains = new Map<string, HostResolution>();
  private readonly suffix: string | null;
  private readonly labelMemo = new Map<string, HostResolution>();

  constructor(site: Pick<SiteConfig, 'domains' | 'subdomain_suffix'>) {
    for (const [key, value] of Object.entries(site.domains ?? {})) {
      const where = `gateway.site.domains["${key}"]`;
      const name = validateName(key);
      if (typeof name !== 'string') {
        throw new ConfigError(`config error: ${where}: not a host name (${name.reason})`);
      }
      const tape = typeof value === 'string' ? parseAddress(value.trim()) : null;
      if (!tape) {
        throw new ConfigError(
          `config error: ${where}: ${JSON.stringify(value)} is not a tape address`,
        );
      }
      const existing = this.domains.get(name);
      if (existing?.kind === 'tape' && existing.tape !== tape) {
        throw new ConfigError(`config error: ${where}: ${name} is mapped to two different tapes`);
      }
      this.domains.set(name, { kind: 'tape', tape, via: 'domain' });
    }
    this.suffix = parseSuffix(site.subdomain_suffix ?? '');
  }

  /** The answer for hosts the configuration decides; undefined for hosts it knows nothing of. */
  match(name: string): HostResolution | undefined {
    const exact = this.domains.get(name);
    if (exact) return exact;
    const suffix = this.suffix;
    if (suffix === null) return undefined;
    if (name === suffix) return NO_SITE;
    if (!name.endsWith(suffix) || name[name.length - suffix.length - 1] !== '.') return undefined;
    // Under our suffix: it is a label of ours or nothing; never looked up in DNS.
    return this.fromLabel(name.slice(0, name.length - suffix.length - 1));
  }

  private fromLabel(label: string): HostResolution {
    const memo = this.labelMemo.get(label);
    if (memo) return memo;
    const tape = label.includes('.') ? null : addressFromLabel(label);
    if (!tape) return NO_SITE;
    const resolution: HostResolution = { kind: 'tape', tape, via: 'subdomain' };
    if (this.labelMemo.size >= LABEL_MEMO_ENTRIES) {
      this.labelMemo.delete(this.labelMemo.keys().next().value as string);
    }
    this.labelMemo.set(label, resolution);
    return resolution;
  }
}

function parseSuffix(text: string): string | null {
  if (text.trim() === '') return null;
  const host = parseHost(text.trim());
  if (host.kind === 'invalid') {
    throw new ConfigError(
      `config error: gateway.site.subdomain_suffix: "${text}" is not host or host:port (${host.reason})`,
    );
  }
  return host.name;
}
