import { LocalnetConfig } from '../config/localnet.config';
import type { FaucetRateLimits } from './faucet-rate-limit';
import type { RpcLimits } from './rpc/rpc-limits';

/** Every limit of the local network, whole: `localnet.*` as startLocalnet options. */
export interface LocalnetLimits {
  maxAirdropLamports: number;
  maxStorageTokens: bigint;
  rpcLimits: RpcLimits;
  faucetRateLimits: FaucetRateLimits;
}

/** Recipients and client addresses the faucet remembers at most (the oldest are dropped). */
const FAUCET_MAX_KEYS = 100_000;

/** The limits of `localnet.*` (standalone and embedded alike; the defaults when not given). */
export function localnetLimits(c: LocalnetConfig): LocalnetLimits {
  return {
    maxAirdropLamports: c.airdrop_max_lamports,
    maxStorageTokens: BigInt(c.storage_token_max_units),
    rpcLimits: {
      maxRequestBodyBytes: c.rpc_max_request_body_bytes,
      maxBatchLength: c.rpc_max_batch_length,
      maxResponseBytes: c.rpc_max_response_bytes,
      maxBatchResponseBytes: c.rpc_max_batch_response_bytes,
      maxInflightResponseBytes: c.rpc_max_inflight_response_bytes,
      maxProgramAccounts: c.rpc_max_program_accounts,
      maxWsBufferedBytes: c.rpc_ws_max_buffered_bytes,
      maxConnectionsPerAddress: c.rpc_max_connections_per_address,
      maxWsConnectionsPerAddress: c.rpc_ws_max_connections_per_address,
      maxWsSubscriptionsPerAddress: c.rpc_ws_max_subscriptions_per_address,
      responseTimeoutMs: c.rpc_response_timeout_secs * 1000,
    },
    faucetRateLimits: {
      perIp: { burst: c.faucet_ip_burst, perMinute: c.faucet_ip_per_minute },
      perRecipient: { burst: c.faucet_recipient_burst, perMinute: c.faucet_recipient_per_minute },
      unlimitedIps: c.faucet_unlimited_ips,
      maxKeys: FAUCET_MAX_KEYS,
    },
  };
}
