import { IsIn, IsOptional, IsString } from 'class-validator';

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
}
