import { Injectable } from '@nestjs/common';
import type { PeerRequest } from '../http/client-ip';
import type { MeterDecision } from './meter-decision';
import type { BudgetName } from './metering-budgets';
import { MeteringService } from './metering.service';
import { appendRateLimitHeaders, HeaderSink, setRateLimitHeaders } from './rate-limit-headers';
import { TooManyRequestsError } from './too-many-requests.error';

/** A refusal as the main listener writes it: 429, the RateLimit headers, the JSON error body. */
export interface MeterRefusal {
  status: 429;
  /** Raw header list (name, value, …), as Node's `writeHead` takes it. */
  headers: string[];
  body: Buffer;
}

/** A refusal as the S3 listener writes it: the `SlowDown` error and its headers. */
export interface S3SlowDown {
  code: 'SlowDown';
  message: string;
  headers: Record<string, string>;
}

const JSON_TYPE = 'application/json; charset=utf-8';
const SLOW_DOWN_MESSAGE = 'please reduce your request rate';

/**
 * The one metering gate of the gateway: every metered request of every listener passes here.
 * It counts the request (MeteringService, synchronously when the store answers at once), and
 * shapes what a client is told: the RateLimit headers on every metered answer, and over budget
 * the 429 with the gateway's error body (Nest routes through the guard, the site edge) or S3's
 * 503 SlowDown with Retry-After (the S3 listener).
 */
@Injectable()
export class MeteringGate {
  constructor(private readonly metering: MeteringService) {}

  get enabled(): boolean {
    return this.metering.enabled;
  }

  /** Counts one request of the client of `request` against `budget`. */
  check(request: PeerRequest, budget: BudgetName): MeterDecision | Promise<MeterDecision> {
    return this.metering.meterRequest(request, budget);
  }

  /** `check`, always as a promise (listeners that await anyway). */
  async checkAsync(request: PeerRequest, budget: BudgetName): Promise<MeterDecision> {
    return this.metering.meterRequest(request, budget);
  }

  /**
   * Charges the bytes an answer is about to send to the client of `request` (the object byte
   * budget). Over budget, sets the 429's headers on `sink` and throws the 429 error (the
   * exception filter sends the body); nothing was sent.
   */
  async enforceBytes(
    request: PeerRequest,
    sink: HeaderSink,
    bytes: number,
  ): Promise<MeterDecision> {
    const decision = await this.metering.chargeBytes(this.metering.clientKeyOf(request), bytes);
    if (!decision.allowed) {
      setRateLimitHeaders(sink, decision);
      throw this.error(decision);
    }
    return decision;
  }

  /** Appends the RateLimit headers of `decision` (and on a refusal Retry-After, no-store). */
  appendHeaders(list: string[], decision: MeterDecision): void {
    appendRateLimitHeaders(list, decision);
  }

  /** The 429 error for a refused decision, worded for its budget (thrown from Nest routes). */
  error(decision: MeterDecision): TooManyRequestsError {
    return this.metering.refusal(decision);
  }

  /** The 429 answer for a refused decision, for edges that write responses themselves. */
  refusal(decision: MeterDecision): MeterRefusal {
    const body = Buffer.from(JSON.stringify(this.error(decision).getResponse()));
    const headers = ['content-type', JSON_TYPE, 'x-content-type-options', 'nosniff'];
    appendRateLimitHeaders(headers, decision);
    headers.push('content-length', String(body.length));
    return { status: 429, headers, body };
  }

  /** S3's refusal for a refused decision: `503 SlowDown` with `Retry-After`. */
  slowDown(decision: MeterDecision): S3SlowDown {
    return s3SlowDown(decision.retryAfterSecs);
  }
}

/** S3's `SlowDown` refusal, telling the client to retry in `retryAfterSecs` (at least 1). */
export function s3SlowDown(retryAfterSecs: number): S3SlowDown {
  return {
    code: 'SlowDown',
    message: SLOW_DOWN_MESSAGE,
    headers: { 'retry-after': String(Math.max(1, Math.ceil(retryAfterSecs))) },
  };
}
