import { Clock } from './clock';
import { TxtMissReason } from './txt-lookup';

/** What the gateway knows about one customer domain's TXT binding. */
export type Binding = { kind: 'bound'; tape: string } | { kind: 'unbound'; reason: UnboundReason };

export type UnboundReason =
  | TxtMissReason
  /** Records exist but none is a tape address. */
  | 'no-address'
  /** Records name two different tapes. */
  | 'ambiguous'
  /** Too many lookups in flight: answered as a miss and not cached. */
  | 'overloaded'
  /** The lookup threw (a bug, not a DNS answer). */
  | 'error';

/** A fresh lookup's result, with the record TTL the cache clamps. */
export type FetchedBinding =
  { kind: 'bound'; tape: string; ttlSecs: number } | { kind: 'unbound'; reason: UnboundReason };

export interface BindingCacheLimits {
  /** Entries per LRU: bindings and misses are kept apart (see the class comment). */
  maxEntries: number;
  negativeTtlSecs: number;
  maxInFlight: number;
}

export interface BindingCacheStats {
  bindings: number;
  misses: number;
  inFlight: number;
  hits: number;
  lookups: number;
  failures: number;
}

/** Lookups that got no usable DNS answer (as opposed to an answer saying "not bound"). */
const FAILURES: ReadonlySet<UnboundReason> = new Set([
  'servfail',
  'refused',
  'timeout',
  'network',
  'error',
]);

/** Spec 8: a binding lives for its record's TTL clamped between one minute and one hour. */
export const MIN_BINDING_TTL_SECS = 60;
export const MAX_BINDING_TTL_SECS = 3600;

export function clampBindingTtl(ttlSecs: number): number {
  if (!Number.isFinite(ttlSecs)) return MIN_BINDING_TTL_SECS;
  return Math.min(MAX_BINDING_TTL_SECS, Math.max(MIN_BINDING_TTL_SECS, ttlSecs));
}

interface Entry {
  binding: Binding;
  expiresAt: number;
}

/**
 * The binding cache, shaped by what random Host headers can do to a gateway:
 * - bindings and misses sit in two separate LRUs, so a flood of made-up hosts churns only the
 *   miss side and never evicts the bindings of real domains;
 * - concurrent lookups of one name share one query;
 * - at most `maxInFlight` names are looked up at once; past that a lookup is answered as an
 *   uncached miss at once, so the resolver sees a bounded load and requests never queue.
 * A removed record detaches when its entry expires: at most the clamped TTL after it was read.
 */
export class BindingCache {
  private readonly bindings = new Map<string, Entry>();
  private readonly misses = new Map<string, Entry>();
  private readonly counts = { hits: 0, lookups: 0, failures: 0 };
  private readonly pending = new Map<string, Promise<Binding>>();

  constructor(
    private readonly clock: Clock,
    private readonly limits: BindingCacheLimits,
  ) {}

  get(name: string, fetch: (name: string) => Promise<FetchedBinding>): Promise<Binding> {
    const cached = this.cached(name);
    if (cached) {
      this.counts.hits++;
      return Promise.resolve(cached);
    }
    const pending = this.pending.get(name);
    if (pending) return pending;
    if (this.pending.size >= this.limits.maxInFlight) {
      return Promise.resolve({ kind: 'unbound', reason: 'overloaded' });
    }
    const lookup = this.fetchAndStore(name, fetch).finally(() => this.pending.delete(name));
    this.pending.set(name, lookup);
    return lookup;
  }

  /**
   * Entries held (bindings, misses), lookups in flight, and since start: answers from the cache
   * (hits), lookups sent to DNS, and lookups that failed (no DNS answer, or it threw).
   */
  stats(): BindingCacheStats {
    return {
      bindings: this.bindings.size,
      misses: this.misses.size,
      inFlight: this.pending.size,
      ...this.counts,
    };
  }

  private cached(name: string): Binding | undefined {
    const now = this.clock.now();
    for (const map of [this.bindings, this.misses]) {
      const entry = map.get(name);
      if (!entry) continue;
      map.delete(name);
      if (entry.expiresAt <= now) continue;
      map.set(name, entry); // most recently used goes last
      return entry.binding;
    }
    return undefined;
  }

  private async fetchAndStore(
    name: string,
    fetch: (name: string) => Promise<FetchedBinding>,
  ): Promise<Binding> {
    let fetched: FetchedBinding;
    this.counts.lookups++;
    try {
      fetched = await fetch(name);
    } catch {
      fetched = { kind: 'unbound', reason: 'error' };
    }
    if (fetched.kind === 'unbound' && FAILURES.has(fetched.reason)) this.counts.failures++;
    if (fetched.kind === 'bound') {
      const binding: Binding = { kind: 'bound', tape: fetched.tape };
      this.store(this.bindings, name, binding, clampBindingTtl(fetched.ttlSecs));
      this.misses.delete(name);
      return binding;
    }
    const binding: Binding = { kind: 'unbound', reason: fetched.reason };
    if (fetched.reason !== 'overloaded') {
      this.store(this.misses, name, binding, this.limits.negativeTtlSecs);
      this.bindings.delete(name);
    }
    return binding;
  }

  private store(map: Map<string, Entry>, name: string, binding: Binding, ttlSecs: number): void {
    map.delete(name);
    map.set(name, { binding, expiresAt: this.clock.now() + ttlSecs * 1000 });
    while (map.size > this.limits.maxEntries) {
      const oldest = map.keys().next().value as string;
      map.delete(oldest);
    }
  }
}
