/**
 * What one client may ask of the local network's JSON-RPC in one request. A request past a
 * limit gets a JSON-RPC error (or HTTP 413/415 before parsing); nothing a client sends may
 * build a string the process cannot hold or keep the event loop busy for long. The defaults are
 * `localnet.*`'s (src/config/localnet.config.ts).
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
  /** Open connections one client address may hold on the JSON-RPC listener; 0: no cap. */
  maxConnectionsPerAddress: number;
  /** Open connections one client address may hold on the PubSub listener; 0: no cap. */
  maxWsConnectionsPerAddress: number;
  /** Subscriptions one client address may hold over all its WebSocket connections. */
  maxWsSubscriptionsPerAddress: number;
  /** Milliseconds an HTTP answer may take to be written out before its connection is closed. */
  responseTimeoutMs: number;
}
