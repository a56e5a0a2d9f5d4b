import { Injectable, Logger } from '@nestjs/common';
import { GatewayConfig } from '../config/app-config';
import { Clock } from '../domains/clock';
import { HostRoute, HostRouter } from '../domains/host-router';
import { TapeLife } from '../chain/tape-life';
import { TtlCache } from '../chain/ttl-cache';
import { TapeLiveness } from './tape-liveness';
import { TokenBucket } from './token-bucket';

export interface AskAnswer {
  status: 200 | 400 | 404 | 429 | 503;
  body: string;
}

/** Why an ask was refused: the `reason` label of `tape_tls_ask_refusals_total`. */
export type AskRefusal =
  | 'invalid' // no host name, or not a usable one (IP literals included)
  | 'no-site' // names no tape: not under the suffix as a label, not configured, not bound
  | 'no-tape' // a label or binding names a tape that does not exist
  | 'expired' // ... or a tape whose reservation ended
  | 'rate-limited' // a fresh decision past gateway.admin.tls_ask.lookups_per_minute
  | 'unavailable'; // the chain could not be read: refused, not remembered

export const ASK_REFUSALS: readonly AskRefusal[] = [
  'invalid',
  'no-site',
  'no-tape',
  'expired',
  'rate-limited',
  'unavailable',
];

export interface AskStats {
  approved: number;
  refused: Record<AskRefusal, number>;
}

/** A decision for one label or customer domain, as the cache keeps it. */
type Verdict = { ok: true } | { ok: false; reason: AskRefusal };

const APPROVED: Verdict = Object.freeze({ ok: true });

/** A fresh verdict and how long to remember it (0: not at all). */
interface Fresh {
  verdict: Verdict;
  keepMs: number;
}

/**
 * Caddy's on-demand TLS `ask`: may a certificate be issued for `domain`? Every certificate
 * spends the CA's budget for its registered domain (Let's Encrypt: 50 a week), so the answer is
 * yes only for a name that serves a site now:
 * - an operator domain (`gateway.site.domains`): the operator's own list, approved as is;
 * - a label under `subdomain_suffix`, or a DNSSEC-bound customer domain (`txt_domains`), whose
 *   tape exists on chain and is active.
 * The host is classified by the one host router of every listener (TXT answers come from its
 * binding cache). Decisions are remembered per label or domain (`gateway.admin.tls_ask`:
 * refusals `refused_ttl_secs`, approvals `approved_ttl_secs` but never past the tape's expiry,
 * at most `cache_entries`), and fresh ones are rate-limited (`lookups_per_minute`,
 * `lookup_burst`): past the limit the answer is 429, which Caddy takes as "no", so random names
 * cost neither the chain nor the resolver more than that.
 */
@Injectable()
export class TlsAsk {
  private readonly logger = new Logger('tls-ask');
  private readonly verdicts: TtlCache<Verdict>;
  private readonly bucket: TokenBucket;
  private readonly approvedTtlMs: number;
  private readonly refusedTtlMs: number;
  private readonly counts: AskStats = {
    approved: 0,
    refused: Object.fromEntries(ASK_REFUSALS.map((r) => [r, 0])) as Record<AskRefusal, number>,
  };

  constructor(
    private readonly hosts: HostRouter,
    private readonly liveness: TapeLiveness,
    clock: Clock,
    gateway: GatewayConfig,
  ) {
    const limits = gateway.admin.tls_ask;
    const now = () => clock.now();
    this.verdicts = new TtlCache(limits.cache_entries, now);
    this.bucket = new TokenBucket(limits.lookup_burst, limits.lookups_per_minute, now);
    this.approvedTtlMs = limits.approved_ttl_secs * 1000;
    this.refusedTtlMs = limits.refused_ttl_secs * 1000;
  }

  async ask(domain: string | null): Promise<AskAnswer> {
    const verdict = await this.decide(domain);
    if (verdict.ok) {
      this.counts.approved++;
      return { status: 200, body: 'ok\n' };
    }
    this.counts.refused[verdict.reason]++;
    return REFUSALS[verdict.reason];
  }

  stats(): AskStats {
    return { approved: this.counts.approved, refused: { ...this.counts.refused } };
  }

  private async decide(domain: string | null): Promise<Verdict> {
    if (domain === null || domain === '') return refused('invalid');
    const route = this.hosts.route(domain);
    if (route.kind === 'txt') {
      return this.remembered(`txt:${route.name}`, () => this.decideBound(route));
    }
    const resolution = route.resolution;
    if (resolution.kind === 'invalid' || resolution.kind === 'bad-version') {
      return refused('invalid');
    }
    if (resolution.kind === 'none') return refused('no-site');
    if (resolution.via === 'domain') return APPROVED;
    return this.remembered(`tape:${resolution.tape}`, () => this.decideTape(resolution.tape));
  }

  /**
   * The remembered verdict for `key`, or a fresh one if the bucket has a token (concurrent asks
   * for one key share it). Rate-limited and unavailable verdicts are never remembered.
   */
  private async remembered(key: string, fresh: () => Promise<Fresh>): Promise<Verdict> {
    return this.verdicts.getOrLoad(key, async () => {
      if (!this.bucket.take()) return refused('rate-limited');
      const { verdict, keepMs } = await fresh();
      this.verdicts.set(key, verdict, keepMs);
      return verdict;
    });
  }

  private async decideBound(route: HostRoute & { kind: 'txt' }): Promise<Fresh> {
    const resolution = await this.hosts.resolveRoute(route);
    if (resolution.kind !== 'tape') return this.refusal('no-site');
    return this.decideTape(resolution.tape);
  }

  /** The tape's life on chain: an approval is kept until the tape expires at the latest. */
  private async decideTape(tape: string): Promise<Fresh> {
    let life: TapeLife;
    try {
      life = await this.liveness.of(tape);
    } catch (err) {
      this.logger.warn({ event: 'tls-ask-chain-unavailable', msg: (err as Error).message });
      return { verdict: refused('unavailable'), keepMs: 0 };
    }
    if (life.kind === 'unknown') return this.refusal('no-tape');
    if (life.kind === 'expired') return this.refusal('expired');
    return { verdict: APPROVED, keepMs: Math.min(this.approvedTtlMs, life.expiresInMs) };
  }

  private refusal(reason: AskRefusal): Fresh {
    return { verdict: refused(reason), keepMs: this.refusedTtlMs };
  }
}

function refused(reason: AskRefusal): Verdict {
  return { ok: false, reason };
}

/** Caddy issues nothing on any answer but 2xx; the bodies and codes are for operators. */
const REFUSALS: Record<AskRefusal, AskAnswer> = {
  invalid: { status: 400, body: 'not a host name\n' },
  'no-site': { status: 404, body: 'no site on this host\n' },
  'no-tape': { status: 404, body: 'no such tape\n' },
  expired: { status: 404, body: 'tape expired\n' },
  'rate-limited': { status: 429, body: 'too many new names; try again later\n' },
  unavailable: { status: 503, body: 'chain unavailable\n' },
};
