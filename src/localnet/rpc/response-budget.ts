import { RpcError } from './rpc-error';

/** JSON around one encoded account (keys, lamports, owner, rentEpoch, space, pubkey). */
export const ACCOUNT_JSON_OVERHEAD = 256;

/**
 * Bytes of response one request may still produce. Handlers charge what they are about to
 * encode *before* encoding it, so a request for more than the limit fails without ever
 * building the oversized string (base64 of a 10 MiB account is ~14 MB per copy).
 */
export class ResponseBudget {
  private spent = 0;

  constructor(
    readonly limit: number,
    private readonly exceeded: (limit: number) => RpcError = responseTooLarge,
  ) {}

  get remaining(): number {
    return Math.max(0, this.limit - this.spent);
  }

  /** Counts `bytes` against the budget; throws the response-too-large error past it. */
  charge(bytes: number): void {
    this.spent += bytes;
    if (this.spent > this.limit) throw this.exceeded(this.limit);
  }
}

export function responseTooLarge(limit: number): RpcError {
  return RpcError.invalidRequest(
    `response exceeds the limit of ${limit} bytes; ask for less: a dataSlice, fewer accounts ` +
      'or a smaller batch',
  );
}

/** Length of base64 text for `bytes` bytes of data. */
export function base64Length(bytes: number): number {
  return 4 * Math.ceil(bytes / 3);
}
