import { Injectable } from '@nestjs/common';
import { isIP } from 'node:net';
import { addressFromLabel } from '../chain/tape-label';
import { parseHost, ParsedHost } from '../config/host-name';
import { siteDomains, subdomainSuffix } from '../config/site-checks';
import { SiteConfig } from '../config/site.config';
import { HostResolution, NO_SITE } from './host-resolution';
import { TxtBindingService } from './txt-binding.service';
import { parseHostSelector } from './version-selector';

/**
 * Where a Host value leads:
 * - `gateway`: one of the gateway's own names (its routes: `/site/…`, `/object/…`, `/healthz`);
 *   `resolution` is what the name means as a site host (none, or why it is not a host name);
 * - `site`: a site host whose answer the configuration fixes (an operator domain, a label under
 *   the subdomain suffix, a name there that is no label, a host that cannot name a site);
 * - `txt`: a customer domain, served when its DNSSEC-validated `_tape.` binding names a tape.
 */
export type HostRoute =
  | { kind: 'gateway'; resolution: HostResolution }
  | { kind: 'site'; resolution: HostResolution }
  | { kind: 'txt'; name: string };

/** Distinct Host values remembered; past this the memo starts over (hostile hosts cannot grow it). */
const MEMO_LIMIT = 10000;

/** Top-level names that never reach public DNS (RFC 6761, RFC 6762, RFC 7686). */
const NEVER_IN_DNS = new Set(['localhost', 'invalid', 'local', 'onion']);
const MAX_QUERY_NAME_LENGTH = 253;

/**
 * The one host router of the gateway: a Host value (`Host`, or `:authority` in HTTP/2) is
 * parsed once (host-name.ts) and classified once, remembered per distinct value, for every
 * listener: the main listener's site edge and metrics, the admin listener's TLS ask.
 *
 * In this order (docs/site.md, "Hostname routing"):
 * 1. a key of `gateway.site.domains` -> that tape (wins even over a gateway name);
 * 2. a name in `gateway_hosts`, the host of `subdomain_suffix` or of `public_url` -> the gateway;
 * 3. an IP literal -> the gateway;
 * 4. any name under `subdomain_suffix` -> the tape of its label (`v<n>--<label>` and
 *    `<alias>--<label>`: one of its kept versions), or no site (never DNS);
 * 5. with `txt_domains`, any other name with a dot -> its TXT binding (special-use names and
 *    single labels are never sent to DNS: no site);
 * 6. anything else -> the gateway.
 * A site host that is not a valid host name (an underscore, an empty label, a bad port) names
 * no site and says why (`invalid`). Ports are ignored on both sides.
 *
 * The configuration was checked when it was loaded (src/config/site-checks.ts); the router
 * reads the same parsed values.
 */
@Injectable()
export class HostRouter {
  private readonly domains = new Map<string, HostResolution>();
  private readonly gatewayHosts = new Set<string>();
  private readonly suffix: string | null;
  private readonly txtDomains: boolean;
  private readonly memo = new Map<string, HostRoute>();
  /**
   * The last Host value routed and its route. A keep-alive connection sends the same Host on
   * every request, and each request asks twice (the site edge, then the request observer's route
   * kind): a string compare instead of hashing the header's new string for the memo each time.
   */
  private lastHost: string | undefined;
  private lastRoute: HostRoute | undefined;

  constructor(
    site: SiteConfig,
    private readonly bindings: TxtBindingService,
  ) {
    for (const [name, tape] of siteDomains(site)) {
      this.domains.set(name, Object.freeze({ kind: 'tape', tape, via: 'domain' }));
    }
    this.suffix = subdomainSuffix(site);
    this.txtDomains = site.txt_domains;
    const own = [...(site.gateway_hosts ?? [])];
    if (this.suffix) own.push(this.suffix);
    if (site.public_url) own.push(hostOfUrl(site.public_url));
    for (const host of own) {
      const name = parseHost(host.trim()).name;
      if (name) this.gatewayHosts.add(name);
    }
  }

  /** Where requests with this Host value go (synchronous: no DNS). */
  route(rawHost: string | string[] | undefined): HostRoute {
    if (typeof rawHost !== 'string') return this.classify(parseHost(rawHost));
    if (rawHost === this.lastHost) return this.lastRoute!;
    let route = this.memo.get(rawHost);
    if (route === undefined) {
      route = this.classify(parseHost(rawHost));
      if (this.memo.size >= MEMO_LIMIT) this.memo.clear();
      this.memo.set(rawHost, route);
    }
    this.lastHost = rawHost;
    this.lastRoute = route;
    return route;
  }

  /** What a route names: a tape, no site or an unusable host; customer domains ask DNS. */
  resolveRoute(route: HostRoute): HostResolution | Promise<HostResolution> {
    if (route.kind !== 'txt') return route.resolution;
    return this.bindings
      .lookup(route.name)
      .then((binding) =>
        binding.kind === 'bound' ? { kind: 'tape', tape: binding.tape, via: 'txt' } : NO_SITE,
      );
  }

  /** `route` then `resolveRoute`: what a Host value names as a site. */
  resolve(rawHost: string | string[] | undefined): HostResolution | Promise<HostResolution> {
    return this.resolveRoute(this.route(rawHost));
  }

  private classify(host: ParsedHost): HostRoute {
    const name = host.name;
    if (name === null) return gateway(host);
    const domain = this.domains.get(name);
    if (domain) return site(host, domain);
    if (this.gatewayHosts.has(name) || isIP(name) !== 0) return gateway(host);
    const suffix = this.suffix;
    if (suffix !== null && name.length > suffix.length + 1 && name.endsWith(suffix)) {
      if (name.charCodeAt(name.length - suffix.length - 1) === 46 /* . */) {
        return site(host, labelResolution(name.slice(0, name.length - suffix.length - 1)));
      }
    }
    if (!this.txtDomains || !name.includes('.')) return gateway(host);
    if (host.kind === 'invalid' || !mayHaveTxtBinding(name)) return site(host, NO_SITE);
    return { kind: 'txt', name };
  }
}

function gateway(host: ParsedHost): HostRoute {
  return { kind: 'gateway', resolution: host.kind === 'host' ? NO_SITE : invalid(host.reason) };
}

/** A site host: its configured answer, unless the Host value is no host name at all. */
function site(host: ParsedHost, resolution: HostResolution): HostRoute {
  return { kind: 'site', resolution: host.kind === 'host' ? resolution : invalid(host.reason) };
}

function invalid(reason: string): HostResolution {
  return { kind: 'invalid', reason };
}

/**
 * Under our suffix: a label of ours or nothing; never looked up in DNS. `<x>--<label>` is a
 * kept version of the label's tape (labels are base32, never a hyphen: the last `--` splits):
 * `v<n>` pinned, an alias name otherwise; an `<x>` that is neither says so (400).
 */
function labelResolution(label: string): HostResolution {
  if (label.includes('.')) return NO_SITE;
  const split = label.lastIndexOf('--');
  const tape = addressFromLabel(split < 0 ? label : label.slice(split + 2));
  if (!tape) return NO_SITE;
  if (split < 0) return { kind: 'tape', tape, via: 'subdomain' };
  const selector = parseHostSelector(label.slice(0, split));
  if (selector.kind === 'bad') return { kind: 'bad-version', reason: selector.reason };
  return Object.freeze({ kind: 'tape', tape, via: 'subdomain', selector });
}

/** Single-label and special-use names are never sent to the resolver. */
function mayHaveTxtBinding(name: string): boolean {
  const lastDot = name.lastIndexOf('.');
  if (lastDot < 0) return false;
  if (NEVER_IN_DNS.has(name.slice(lastDot + 1))) return false;
  return '_tape.'.length + name.length <= MAX_QUERY_NAME_LENGTH;
}

function hostOfUrl(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return url;
  }
}
