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
}
