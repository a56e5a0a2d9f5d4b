/** A JSON-RPC error with Solana's codes and messages. */
export class RpcError extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly data?: unknown,
  ) {
    super(message);
    this.name = 'RpcError';
  }

  static parse(): RpcError {
    return new RpcError(-32700, 'Parse error');
  }
  static invalidRequest(message = 'Invalid request'): RpcError {
    return new RpcError(-32600, message);
  }
  static methodNotFound(): RpcError {
    return new RpcError(-32601, 'Method not found');
  }
  /** Solana's wording: `Invalid params: <why>` for malformed values. */
  static invalidParams(detail: string): RpcError {
    return new RpcError(-32602, `Invalid params: ${detail}`);
  }
  /** Solana's wording: `Invalid param: <why>` for a value of the right shape that is wrong. */
  static invalidParam(detail: string): RpcError {
    return new RpcError(-32602, `Invalid param: ${detail}`);
  }
  /** Messages Solana sends as -32602 without a prefix (decoding a transaction). */
  static invalidParamsRaw(message: string): RpcError {
    return new RpcError(-32602, message);
  }
  static internal(): RpcError {
    return new RpcError(-32603, 'Internal error');
  }
}

/** Solana's server error codes (`rpc_custom_error.rs`). */
export const SolanaErrorCode = {
  BlockNotAvailable: -32004,
  ScanError: -32012,
  SendTransactionPreflightFailure: -32002,
  TransactionSignatureVerificationFailure: -32003,
  TransactionVersionNotSupported: -32015,
  MinContextSlotNotReached: -32016,
} as const;
