import { LocalnetConfig } from '../config/localnet.config';
import { LocalnetOptions } from './localnet';

/** The limits of `localnet.*` as startLocalnet options (standalone and embedded alike). */
export function localnetLimits(
  c: LocalnetConfig,
): Pick<
  LocalnetOptions,
  'maxAirdropLamports' | 'maxStorageTokens' | 'rpcLimits' | 'faucetRateLimits'
> {
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
    },
    faucetRateLimits: {
      perIp: { burst: c.faucet_ip_burst, perMinute: c.faucet_ip_per_minute },
      perRecipient: { burst: c.faucet_recipient_burst, perMinute: c.faucet_recipient_per_minute },
      unlimitedIps: c.faucet_unlimited_ips,
    },
  };
}
