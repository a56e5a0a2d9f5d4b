import { Injectable } from '@nestjs/common';
import { HostRouter } from '../domains/host-router';

export interface AskAnswer {
  status: 200 | 400 | 404;
  body: string;
}

/**
 * Caddy's on-demand TLS `ask`: may a certificate be issued for `domain`? Yes only for a host the
 * gateway would serve a site on, decided by the one host router of every listener (operator domains,
 * canonical labels under `subdomain_suffix`, DNSSEC-bound domains with `txt_domains`), so TXT
 * answers come from the same binding cache.
 */
@Injectable()
export class TlsAsk {
  constructor(private readonly hosts: HostRouter) {}

  async ask(domain: string | null): Promise<AskAnswer> {
    if (domain === null || domain === '') return { status: 400, body: 'domain is required\n' };
    const resolution = await this.hosts.resolve(domain);
    if (resolution.kind === 'tape') return { status: 200, body: 'ok\n' };
    if (resolution.kind === 'invalid') return { status: 400, body: 'not a host name\n' };
    return { status: 404, body: 'no site on this host\n' };
  }
}
