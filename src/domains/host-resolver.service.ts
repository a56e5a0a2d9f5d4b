import { Injectable } from '@nestjs/common';
import { SiteConfig } from '../config/site.config';
import { HostResolution, NO_SITE } from './host-resolution';
import { parseHost } from './host-name';
import { StaticHostRoutes } from './static-host-routes';
import { TxtBindingService } from './txt-binding.service';

/** Top-level names that never reach public DNS (RFC 6761, RFC 6762, RFC 7686). */
const NEVER_IN_DNS = new Set(['localhost', 'invalid', 'local', 'onion']);
const MAX_QUERY_NAME_LENGTH = 253;

/**
 * Host -> tape for the site routes: exact operator domains, then `<label>.<subdomain_suffix>`,
 * then (with `txt_domains`) the DNSSEC-validated `_tape.<host>` TXT binding. Anything else is
 * `none`: an unknown host never falls through to some other site.
 */
@Injectable()
export class HostResolverService {
  private readonly routes: StaticHostRoutes;
  private readonly txtDomains: boolean;

  constructor(
    site: SiteConfig,
    private readonly bindings: TxtBindingService,
  ) {
    this.routes = new StaticHostRoutes(site);
    this.txtDomains = site.txt_domains;
  }

  /** `rawHost`: the `:authority` (HTTP/2) or `Host` (HTTP/1.1) header value as received. */
  async resolve(rawHost: string | string[] | undefined): Promise<HostResolution> {
    const host = parseHost(rawHost);
    if (host.kind === 'invalid') return host;
    const fixed = this.routes.match(host.name);
    if (fixed) return fixed;
    if (!this.txtDomains || !mayHaveTxtBinding(host.name)) return NO_SITE;
    const binding = await this.bindings.lookup(host.name);
    return binding.kind === 'bound' ? { kind: 'tape', tape: binding.tape, via: 'txt' } : NO_SITE;
  }
}

/** Single-label and special-use names are never sent to the resolver. */
function mayHaveTxtBinding(name: string): boolean {
  const lastDot = name.lastIndexOf('.');
  if (lastDot < 0) return false;
  if (NEVER_IN_DNS.has(name.slice(lastDot + 1))) return false;
  return '_tape.'.length + name.length <= MAX_QUERY_NAME_LENGTH;
}
