import { ApiError } from '../http/api-error';
import type { MeterDecision } from './meter-decision';

/** 429 with the gateway's stable error body; the guard sets the RateLimit headers. */
export class TooManyRequestsError extends ApiError {
  constructor(decision: MeterDecision, label: string) {
    super(
      429,
      'too_many_requests',
      `rate limit for ${label} reached (${decision.limit} per window); retry in ${decision.retryAfterSecs} s`,
    );
  }
}
