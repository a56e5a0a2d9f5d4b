import { ExecutionContext, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import {
  InjectThrottlerOptions,
  InjectThrottlerStorage,
  ThrottlerGuard,
  type ThrottlerModuleOptions,
  type ThrottlerStorage,
} from '@nestjs/throttler';
import type { PeerRequest } from '../http/client-ip';
import type { MeterDecision } from './meter-decision';
import { MeteredBudget } from './metered-budget';
import type { BudgetName } from './metering-budgets';
import { MeteringGate } from './metering-gate';
import { MeteringService } from './metering.service';
import { HeaderSink, setRateLimitHeaders } from './rate-limit-headers';

type Handler = (...args: never[]) => unknown;

/**
 * The guard of `@Metered` routes (installed by the decorator, route by route): @nestjs/throttler's
 * ThrottlerGuard with its hooks pointed at the metering gate. The stock `canActivate` asks the reflector five times per
 * named throttler on every request and counts every route against every throttler; here a route
 * is counted against the one budget its `@Metered` names, looked up once per handler.
 */
@Injectable()
export class MeteringGuard extends ThrottlerGuard {
  private readonly budgetByHandler = new WeakMap<object, Map<Handler, BudgetName | null>>();

  constructor(
    @InjectThrottlerOptions() options: ThrottlerModuleOptions,
    @InjectThrottlerStorage() storage: ThrottlerStorage,
    reflector: Reflector,
    private readonly metering: MeteringService,
    private readonly gate: MeteringGate,
  ) {
    super(options, storage, reflector);
  }

  override async canActivate(context: ExecutionContext): Promise<boolean> {
    if (!this.gate.enabled || context.getType() !== 'http') return true;
    const budget = this.budgetOf(context);
    if (budget === null) return true;
    const { req, res } = this.getRequestResponse(context);
    const answer = this.gate.check(req as unknown as PeerRequest, budget);
    // No await when the store answered at once: one promise per request (this method's), not four.
    return this.admit(res as HeaderSink, answer instanceof Promise ? await answer : answer);
  }

  private admit(res: HeaderSink, decision: MeterDecision): boolean {
    setRateLimitHeaders(res, decision);
    if (!decision.allowed) throw this.gate.error(decision);
    return true;
  }

  /** The throttler's tracker hook, for anything that asks: the same client key as metering's. */
  protected override async getTracker(req: Record<string, unknown>): Promise<string> {
    return this.metering.clientKeyOf(req as unknown as PeerRequest);
  }

  private budgetOf(context: ExecutionContext): BudgetName | null {
    const controller = context.getClass();
    const handler = context.getHandler() as Handler;
    let byHandler = this.budgetByHandler.get(controller);
    if (!byHandler) this.budgetByHandler.set(controller, (byHandler = new Map()));
    let budget = byHandler.get(handler);
    if (budget === undefined) {
      budget = this.reflector.getAllAndOverride(MeteredBudget, [handler, controller]) ?? null;
      byHandler.set(handler, budget);
    }
    return budget;
  }
}
