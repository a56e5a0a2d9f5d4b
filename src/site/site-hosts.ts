import { Injectable } from '@nestjs/common';
import { HostResolution } from '../domains/host-resolution';
import { HostResolverService } from '../domains/host-resolver.service';

/** Host values remembered at most; hostile random hosts only ever restart the memo. */
const STATIC_MEMO_LIMIT = 10000;

/**
 * Host -> tape for the hostname routes, over HostResolverService, remembering the answers that
 * never change for a given Host value (operator domains, subdomain labels, unusable hosts) so
 * that a hot site's requests resolve their host synchronously. TXT bindings are not remembered
 * here: they expire with their DNS TTL, which the resolver's own cache honours.
 */
@Injectable()
export class SiteHosts {
  private readonly fixed = new Map<string, HostResolution>();

  constructor(private readonly resolver: HostResolverService) {}

  /** The remembered answer, or undefined when the resolver must be asked. */
  known(rawHost: string): HostResolution | undefined {
    return this.fixed.get(rawHost);
  }

  resolve(rawHost: string | string[] | undefined): HostResolution | Promise<HostResolution> {
    if (typeof rawHost === 'string') {
      const known = this.fixed.get(rawHost);
      if (known) return known;
    }
    return this.resolver.resolve(rawHost).then((resolution) => {
      if (typeof rawHost === 'string' && isFixed(resolution)) this.remember(rawHost, resolution);
      return resolution;
    });
  }

  private remember(rawHost: string, resolution: HostResolution): void {
    if (this.fixed.size >= STATIC_MEMO_LIMIT) this.fixed.clear();
    this.fixed.set(rawHost, resolution);
  }
}

function isFixed(resolution: HostResolution): boolean {
  return resolution.kind === 'tape' ? resolution.via !== 'txt' : resolution.kind === 'invalid';
}
