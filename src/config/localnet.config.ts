import { IsArray, IsIP, IsString } from 'class-validator';
import { IntRange } from './config-decorators';

/** `localnet.*`: the embedded Solana-compatible network. */
export class LocalnetConfig {
  @IsString()
  host = '127.0.0.1';

  /** JSON-RPC port; WebSocket subscriptions on port + 1. */
  @IntRange(0, 65534)
  port = 8899;

  @IntRange(1)
  epoch_duration_secs = 3600;

  /** Storage-token base units per MiB per epoch. */
  @IntRange(0)
  price_per_mib_epoch = 1000;

  /** Milliseconds per slot: how often a block is produced. */
  @IntRange(10)
  slot_ms = 400;

  /** Largest SOL airdrop per request, in lamports (default 1,000 SOL). */
  @IntRange(1, Number.MAX_SAFE_INTEGER)
  airdrop_max_lamports = 1_000_000_000_000;

  /** Largest storage-token grant per faucet request, in base units (default a million tokens). */
  @IntRange(1, Number.MAX_SAFE_INTEGER)
  storage_token_max_units = 1_000_000_000_000;

  /** JSON-RPC bodies (and WebSocket messages) above this are refused: 413. Agave's default. */
  @IntRange(1024, 64 * 1024 * 1024)
  rpc_max_request_body_bytes = 50 * 1024;

  /** Requests in one JSON-RPC batch; a longer batch is one -32600 error. */
  @IntRange(1, 100_000)
  rpc_max_batch_length = 100;

  /**
   * JSON text of one response; past it that request gets -32600. One 10 MiB account fits, and
   * so does the listing of a tape of 100,000 names (about 40 MB: the scale benchmark's).
   */
  @IntRange(64 * 1024, 512 * 1024 * 1024)
  rpc_max_response_bytes = 64 * 1024 * 1024;

  /** JSON text of all the responses of one batch together. */
  @IntRange(64 * 1024, 512 * 1024 * 1024)
  rpc_max_batch_response_bytes = 64 * 1024 * 1024;

  /**
   * Response text of all requests together, built and not yet written (many connections, or
   * clients that do not read). Past it, large responses get -32603 "busy"; small ones still go.
   */
  @IntRange(1024 * 1024, 4 * 1024 * 1024 * 1024)
  rpc_max_inflight_response_bytes = 128 * 1024 * 1024;

  /**
   * Accounts one getProgramAccounts (or getTokenAccountsByOwner) returns; past it -32012. High
   * enough for the listing of a tape of 100,000 names (CLI deploys and S3 listings list a tape).
   */
  @IntRange(1, 10_000_000)
  rpc_max_program_accounts = 200_000;

  /** Bytes queued on one WebSocket whose client does not read before it is dropped. */
  @IntRange(64 * 1024, 1024 * 1024 * 1024)
  rpc_ws_max_buffered_bytes = 32 * 1024 * 1024;

  /**
   * Open connections one client address may hold on the JSON-RPC listener; past it a new
   * connection is closed at once. 0 turns the cap off. (PubSub: the key below.)
   */
  @IntRange(0, 1_000_000)
  rpc_max_connections_per_address = 128;

  /**
   * Open connections one client address may hold on the PubSub (WebSocket) listener; past it a
   * new connection is closed at once. 0 turns the cap off. Lower than the JSON-RPC one: with
   * `rpc_ws_max_buffered_bytes` it bounds the notification bytes one address can make the node
   * hold (16 × 32 MiB), and a client library needs one socket.
   */
  @IntRange(0, 1_000_000)
  rpc_ws_max_connections_per_address = 16;

  /**
   * Client addresses the JSON-RPC and PubSub connection caps never apply to: loopback by default,
   * as for the faucet (the gateway, the CLI and tests on the same host). Set [] to cap them too.
   */
  @IsArray()
  @IsIP(undefined, { each: true })
  rpc_connection_cap_exempt_ips: string[] = ['127.0.0.1', '::1'];

  /** Subscriptions of one client address over all its WebSocket connections; past it -32600. */
  @IntRange(1, 1_000_000)
  rpc_ws_max_subscriptions_per_address = 1000;

  /**
   * Seconds an HTTP JSON-RPC answer may take to reach its client once it is written; then the
   * connection is closed and its bytes (and its share of the in-flight budget) are released.
   */
  @IntRange(1, 3600)
  rpc_response_timeout_secs = 60;

  /** Faucet requests (airdrops and storage tokens) one client address may make at once. */
  @IntRange(1, 1_000_000)
  faucet_ip_burst = 20;

  /** Faucet requests one client address gets back per minute. */
  @IntRange(0, 1_000_000)
  faucet_ip_per_minute = 10;

  /** Faucet requests for one recipient at once (any number of clients together). */
  @IntRange(1, 1_000_000)
  faucet_recipient_burst = 5;

  /** Faucet requests one recipient gets back per minute. */
  @IntRange(0, 1_000_000)
  faucet_recipient_per_minute = 2;

  /** Client addresses the faucet limits do not apply to (the operator's own tools). */
  @IsIP(undefined, { each: true })
  faucet_unlimited_ips: string[] = ['127.0.0.1', '::1'];
}
