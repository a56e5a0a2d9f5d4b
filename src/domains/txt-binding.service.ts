import { Injectable, Logger } from '@nestjs/common';
import { SiteConfig } from '../config/site.config';
import { Binding, BindingCache, FetchedBinding } from './binding-cache';
import { Clock } from './clock';
import { tapeFromTxtRecords } from './tape-txt-record';
import { TxtLookup } from './txt-lookup';

/** At most one "too many lookups" warning per this many milliseconds. */
const OVERLOAD_WARNING_INTERVAL_MS = 60_000;

/** Customer domains: the DNSSEC-validated `_tape.<host>` TXT record, through the cache. */
@Injectable()
export class TxtBindingService {
  private readonly logger = new Logger('Domains');
  private readonly cache: BindingCache;
  private lastOverloadWarning = Number.NEGATIVE_INFINITY;

  constructor(
    site: SiteConfig,
    private readonly clock: Clock,
    private readonly dns: TxtLookup,
  ) {
    this.cache = new BindingCache(clock, {
      maxEntries: site.dns_cache_entries,
      negativeTtlSecs: site.dns_negative_ttl_secs,
      maxInFlight: site.dns_max_inflight,
    });
  }

  /** The binding of `host`, a name that already passed host hygiene. */
  async lookup(host: string): Promise<Binding> {
    const binding = await this.cache.get(`_tape.${host}`, (name) => this.fetch(host, name));
    if (binding.kind === 'unbound' && binding.reason === 'overloaded') this.warnOverloaded();
    return binding;
  }

  stats(): ReturnType<BindingCache['stats']> {
    return this.cache.stats();
  }

  private async fetch(host: string, name: string): Promise<FetchedBinding> {
    const result = await this.dns.lookup(name);
    if (result.kind === 'miss') {
      this.logger.debug({ event: 'domain-unbound', host, reason: result.reason });
      return { kind: 'unbound', reason: result.reason };
    }
    const value = tapeFromTxtRecords(result.records);
    if (value.kind === 'tape') {
      this.logger.debug({ event: 'domain-bound', host, tape: value.tape, ttl: result.ttl });
      return { kind: 'bound', tape: value.tape, ttlSecs: result.ttl };
    }
    if (value.reason === 'ambiguous') {
      // The owner's mistake, invisible to visitors (they get a 404): say it where operators look.
      this.logger.warn({ event: 'domain-binding-ambiguous', host, tapes: value.tapes });
    } else {
      this.logger.debug({ event: 'domain-unbound', host, reason: value.reason });
    }
    return { kind: 'unbound', reason: value.reason };
  }

  private warnOverloaded(): void {
    const now = this.clock.now();
    if (now - this.lastOverloadWarning < OVERLOAD_WARNING_INTERVAL_MS) return;
    this.lastOverloadWarning = now;
    this.logger.warn({
      event: 'domain-lookups-overloaded',
      msg: 'too many TXT lookups in flight; extra hosts answered as unbound (raise gateway.site.dns_max_inflight if this is real traffic)',
    });
  }
}
