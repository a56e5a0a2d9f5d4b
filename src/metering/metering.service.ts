import { Injectable } from '@nestjs/common';
import { MeteringConfig } from '../config/metering.config';
import { ClientIpResolver, clientKeyFromText, PeerRequest } from '../http/client-ip';
import { MeterDecision, unmetered } from './meter-decision';
import { HitResult, MeterStore, MeterStoreStats } from './meter-store';
import {
  BUDGET_NAMES,
  BudgetName,
  budgetsFrom,
  BudgetRule,
  BudgetTable,
  OBJECT_BYTES,
} from './metering-budgets';
import { TooManyRequestsError } from './too-many-requests.error';

export interface MeteringStats extends MeterStoreStats {
  enabled: boolean;
  /** Requests (and byte charges) refused since start, per budget. */
  refused: Record<BudgetName | typeof OBJECT_BYTES, number>;
}

/**
 * Per-client budgets. The guard (`@Metered`) is a thin user of `meterRequest`, the same counting
 * as `consume`; listeners outside Nest's router (the S3 listener) call `consumeRequest` or
 * `consume` themselves, and the object route charges `chargeBytes` (through the gate) once it
 * knows how many bytes it will send.
 */
@Injectable()
export class MeteringService {
  readonly enabled: boolean;
  private readonly budgets: BudgetTable;
  private readonly requestBudgets: ReadonlyMap<string, BudgetRule>;
  private readonly refused: MeteringStats['refused'];
  /** The request budget counted last and its rule: a listener's requests share one budget. */
  private lastBudget: BudgetName | undefined;
  private lastRule: BudgetRule | undefined;

  constructor(
    config: MeteringConfig,
    private readonly store: MeterStore,
    private readonly resolver: ClientIpResolver = ClientIpResolver.fromConfig(config),
  ) {
    this.enabled = config.enabled;
    this.budgets = budgetsFrom(config);
    this.requestBudgets = new Map(BUDGET_NAMES.map((name) => [name, this.budgets[name]]));
    this.refused = { site: 0, object: 0, upload: 0, s3_write: 0, object_bytes: 0 };
  }

  /**
   * The metering identity of a request: the client's IPv4 address, or its IPv6 /64 network,
   * found through the trusted proxies. Works on a Fastify request and on a Node IncomingMessage.
   */
  clientKeyOf(request: PeerRequest): string {
    return this.resolver.clientKey(request);
  }

  /**
   * Counts one request of `client` against `budget`: an IP address as the socket reports it, or
   * a `clientKeyOf` key (which follows the trusted proxies; a bare socket address does not).
   */
  async consume(client: string | undefined, budget: BudgetName): Promise<MeterDecision> {
    return this.count(clientKeyFromText(client), budget);
  }

  /** `consume` for the client of `request` (see `clientKeyOf`): what a listener such as S3 uses. */
  async consumeRequest(request: PeerRequest, budget: BudgetName): Promise<MeterDecision> {
    return this.count(this.resolver.clientKey(request), budget);
  }

  /**
   * `consumeRequest` without a promise when the store answers at once (in memory): the guard's
   * hot path, where every allocation shows in requests per second.
   */
  meterRequest(request: PeerRequest, budget: BudgetName): MeterDecision | Promise<MeterDecision> {
    return this.count(this.resolver.clientKey(request), budget);
  }

  /**
   * Charges `bytes` served to `client` against the object byte budget. Refused when the window
   * already holds other bytes and these would go past the limit; the first response of a window
   * is always allowed, so an object larger than the whole budget can still be fetched (once per
   * window). A refused charge is given back: nothing was sent.
   */
  async chargeBytes(client: string | undefined, bytes: number): Promise<MeterDecision> {
    if (!Number.isSafeInteger(bytes) || bytes < 0) {
      throw new RangeError(`bytes must be a non-negative integer, not ${String(bytes)}`);
    }
    const rule = this.budgets.object_bytes;
    const key = clientKeyFromText(client);
    if (!this.enabled) return unmetered(OBJECT_BYTES, rule.limit);
    const hit = await this.store.hit(OBJECT_BYTES, key, bytes, rule.windowMs);
    const before = hit.total - bytes;
    const allowed = hit.degraded === true || bytes === 0 || hit.total <= rule.limit || before <= 0;
    if (!allowed) await this.store.hit(OBJECT_BYTES, key, -bytes, rule.windowMs);
    return this.decide(OBJECT_BYTES, rule, hit, allowed, allowed ? hit.total : before);
  }

  /** The 429 error for a refused decision, worded for its budget. */
  refusal(decision: MeterDecision): TooManyRequestsError {
    return new TooManyRequestsError(decision, this.budgets[decision.budget].label);
  }

  /** Counters for /healthz details or metrics: store health, failures, refusals. */
  stats(): MeteringStats {
    return { ...this.store.stats(), enabled: this.enabled, refused: { ...this.refused } };
  }

  private count(key: string, budget: BudgetName): MeterDecision | Promise<MeterDecision> {
    const rule = budget === this.lastBudget ? this.lastRule : this.requestRule(budget);
    if (rule === undefined) {
      throw new RangeError(
        `unknown metering budget ${JSON.stringify(budget)}; one of ${BUDGET_NAMES.join(', ')}`,
      );
    }
    if (!this.enabled) return unmetered(budget, rule.limit);
    const answer = this.store.hit(budget, key, 1, rule.windowMs);
    if (answer instanceof Promise)
      return answer.then((hit) => this.decideRequest(budget, rule, hit));
    return this.decideRequest(budget, rule, answer);
  }

  /** The rule of a request budget, remembered as the last one asked for. */
  private requestRule(budget: BudgetName): BudgetRule | undefined {
    const rule = this.requestBudgets.get(budget);
    if (rule !== undefined) {
      this.lastBudget = budget;
      this.lastRule = rule;
    }
    return rule;
  }

  private decideRequest(budget: BudgetName, rule: BudgetRule, hit: HitResult): MeterDecision {
    return this.decide(
      budget,
      rule,
      hit,
      hit.degraded === true || hit.total <= rule.limit,
      hit.total,
    );
  }

  private decide(
    budget: MeterDecision['budget'],
    rule: BudgetRule,
    hit: HitResult,
    allowed: boolean,
    used: number,
  ): MeterDecision {
    const resetSecs = Math.max(1, Math.ceil(hit.msToReset / 1000));
    if (!allowed) this.refused[budget]++;
    return {
      allowed,
      budget,
      limit: rule.limit,
      remaining: Math.max(0, rule.limit - used),
      resetSecs,
      retryAfterSecs: allowed ? 0 : resetSecs,
      degraded: hit.degraded === true,
    };
  }
}
