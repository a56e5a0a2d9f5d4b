import { Expose } from 'class-transformer';
import { IsIn, IsInt, IsOptional, IsString, Max, Min } from 'class-validator';

/** `chain.*`: where the control plane is and who signs for the gateway. */
export class ChainConfig {
  /** Solana JSON-RPC endpoint; unset = embed the local network. */
  @IsOptional()
  @IsString()
  rpc_url?: string;

  @IsOptional()
  @IsString()
  ws_url?: string;

  @IsIn(['processed', 'confirmed', 'finalized'])
  commitment: 'processed' | 'confirmed' | 'finalized' = 'confirmed';

  /** Path of the gateway's keypair (Solana CLI JSON); default `<data_dir>/gateway-key.json`. */
  @IsOptional()
  @IsString()
  gateway_keypair?: string;

  /** Base58 program id; default the project's tape program id. */
  @IsOptional()
  @IsString()
  program_id?: string;

  /**
   * Priority fee in micro-lamports per compute unit (SetComputeUnitPrice on every transaction
   * the writer sends); none by default. YAML `chain.compute_unit_price`, env
   * `TAPE__CHAIN__COMPUTE_UNIT_PRICE`, CLI `--with-compute-unit-price`.
   */
  @Expose({ name: 'compute_unit_price' })
  @IsOptional()
  @IsInt()
  @Min(0)
  @Max(Number.MAX_SAFE_INTEGER)
  computeUnitPrice?: number;
}
