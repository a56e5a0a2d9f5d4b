import { IsInt, IsString, Max, Min } from 'class-validator';

/** `localnet.*`: the embedded Solana-compatible network. */
export class LocalnetConfig {
  @IsString()
  host = '127.0.0.1';

  /** JSON-RPC port; WebSocket subscriptions on port + 1. */
  @IsInt()
  @Min(0)
  @Max(65534)
  port = 8899;

  @IsInt()
  @Min(1)
  epoch_duration_secs = 3600;

  /** Storage-token base units per MiB per epoch. */
  @IsInt()
  @Min(0)
  price_per_mib_epoch = 1000;

  /** Milliseconds per slot: how often a block is produced. */
  @IsInt()
  @Min(10)
  slot_ms = 400;

  /** Largest SOL airdrop per request, in lamports (default 1,000 SOL). */
  @IsInt()
  @Min(1)
  @Max(Number.MAX_SAFE_INTEGER)
  airdrop_max_lamports = 1_000_000_000_000;

  /** Largest storage-token grant per faucet request, in base units (default a million tokens). */
  @IsInt()
  @Min(1)
  @Max(Number.MAX_SAFE_INTEGER)
  storage_token_max_units = 1_000_000_000_000;
}
