import { ApiError } from '../http/api-error';
import type { MeterDecision } from '../metering/meter-decision';

export type SlotScope = 'client' | 'tape';

/** Returned when a scope is full: the limit that refused, for the 429's headers and message. */
export interface SlotRefusal {
  scope: SlotScope;
  limit: number;
}

/** Seconds a client refused for concurrency is told to wait. */
const SLOT_RETRY_AFTER_SECS = 1;

/** Errors of the upload route (docs/uploads.md, the status table). */
export const uploadErrors = {
  badRequest: (message: string) => new ApiError(400, 'bad_request', message),
  unauthorized: (message: string) => new ApiError(401, 'unauthorized', message),
  forbidden: (message: string) => new ApiError(403, 'forbidden', message),
  notFound: (message: string) => new ApiError(404, 'not_found', message),
  conflict: (message: string) => new ApiError(409, 'conflict', message),
  gone: (message: string) => new ApiError(410, 'gone', message),
  tooLarge: (message: string) => new ApiError(413, 'payload_too_large', message),
  mismatch: (message: string) => new ApiError(422, 'commitment_mismatch', message),
  unavailable: (message: string) => new ApiError(503, 'unavailable', message),
  /**
   * 507: the gateway's key cannot pay for the certification. Not 503: clients (the CLI) retry
   * a 503 for minutes, and this lasts until an operator funds the key the message names.
   */
  unfunded: (message: string) => new ApiError(507, 'key_unfunded', message),
  reader: () =>
    new ApiError(
      503,
      'gateway_is_reader',
      'this gateway is a reader: it holds no storage-authority key and takes no uploads; upload through the writer gateway',
    ),
};

/**
 * 429: too many uploads in progress for this client or tape. The controller writes the
 * metering headers (`Retry-After`, `RateLimit-*`) from `decision` with metering's writer.
 */
export class UploadSlotsFullError extends ApiError {
  readonly decision: MeterDecision;

  constructor(refusal: SlotRefusal) {
    super(
      429,
      'too_many_requests',
      `at most ${refusal.limit} uploads at once per ${refusal.scope}; retry in ${SLOT_RETRY_AFTER_SECS} s`,
    );
    this.decision = {
      allowed: false,
      budget: 'upload',
      limit: refusal.limit,
      remaining: 0,
      resetSecs: SLOT_RETRY_AFTER_SECS,
      retryAfterSecs: SLOT_RETRY_AFTER_SECS,
      degraded: false,
    };
  }
}
