/**
 * What one client may ask of the local network's JSON-RPC in one request. A request past a
 * limit gets a JSON-RPC error (or HTTP 413/415 before parsing); nothing a client sends may
 * build a string the process cannot hold or keep the event loop busy for long.
 */
export interface RpcLimits {
  /** Request bodies (HTTP) and messages (WebSocket) above this are refused before parsing. */
  maxRequestBodyBytes: number;
  /** Requests in one JSON-RPC batch. */
  maxBatchLength: number;
  /** JSON text of one response (one batch entry, or a single request). */
  maxResponseBytes: number;
  /** JSON text of a whole batch's responses. */
  maxBatchResponseBytes: number;
  /** Response bytes of all requests together, built and not yet written to their clients. */
  maxInflightResponseBytes: number;
  /** Accounts one getProgramAccounts / getTokenAccountsByOwner may return. */
  maxProgramAccounts: number;
  /** Bytes queued on one WebSocket (a client that does not read) before it is dropped. */
  maxWsBufferedBytes: number;
}

const MiB = 1024 * 1024;

export const DEFAULT_RPC_LIMITS: RpcLimits = {
  // Agave's default (`--rpc-max-request-body-size`, MAX_REQUEST_BODY_SIZE): 50 KiB.
  maxRequestBodyBytes: 50 * 1024,
  maxBatchLength: 100,
  // One account of Solana's largest size (10 MiB) in base64 is ~14 MB: it still fits.
  maxResponseBytes: 16 * MiB,
  maxBatchResponseBytes: 32 * MiB,
  maxInflightResponseBytes: 128 * MiB,
  maxProgramAccounts: 10_000,
  maxWsBufferedBytes: 32 * MiB,
};
