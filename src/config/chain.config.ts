import { PublicKey } from '@solana/web3.js';
import { Expose } from 'class-transformer';
import {
  IsIn,
  IsInt,
  IsOptional,
  IsString,
  Max,
  Min,
  ValidateBy,
  ValidationOptions,
} from 'class-validator';

/** A base58 public key exactly as Solana writes it (32 bytes, no stray characters). */
export function isPublicKey(value: unknown): boolean {
  if (typeof value !== 'string' || !/^[1-9A-HJ-NP-Za-km-z]{32,44}$/.test(value)) return false;
  try {
    return new PublicKey(value).toBase58() === value;
  } catch {
    return false;
  }
}

function IsPublicKey(options?: ValidationOptions): PropertyDecorator {
  return ValidateBy(
    {
      name: 'isPublicKey',
      validator: {
        validate: isPublicKey,
        defaultMessage: () => 'must be a base58 public key',
      },
    },
    options,
  );
}

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

  /**
   * The tape program's id (base58) on this chain: `TAPE_PROGRAM_ID`. Default: the local
   * network's (`Tape111…`). The embedded local network deploys the program at this id at genesis.
   */
  @IsOptional()
  @IsPublicKey()
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
