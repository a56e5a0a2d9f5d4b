import { RpcError } from './rpc-error';

/** Responses this small are always sent: the pool bounds large ones only. */
export const SMALL_RESPONSE_BYTES = 64 * 1024;

/**
 * Response bytes held by the whole server at once: built and not yet written to their client.
 * Per-request and per-batch limits bound one request; this bounds many at once (parallel
 * connections, or clients that do not read), so they cannot add up to more memory than this.
 */
export class ResponsePool {
  private held = 0;

  constructor(readonly limit: number) {}

  /** What a new response may still take: at least SMALL_RESPONSE_BYTES. */
  get available(): number {
    return Math.max(SMALL_RESPONSE_BYTES, this.limit - this.held);
  }

  hold(bytes: number): void {
    this.held += bytes;
  }

  release(bytes: number): void {
    this.held = Math.max(0, this.held - bytes);
  }
}

export function nodeBusy(): RpcError {
  return new RpcError(
    -32603,
    'the node is busy sending other large responses; retry later or ask for less',
  );
}
