import { PublicKey } from '@solana/web3.js';
import { Expose } from 'class-transformer';
import {
  ArrayMaxSize,
  IsArray,
  IsIn,
  IsOptional,
  IsString,
  ValidateBy,
  ValidationOptions,
} from 'class-validator';
import { IntRange } from './config-decorators';

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
  /**
   * Solana JSON-RPC endpoint; unset = embed the local network. Several (YAML list, or
   * comma-separated in `TAPE_RPC_URL`) are tried in order: see `rpc_urls`. After loading, this
   * is always the first endpoint (normalizeRpcUrls).
   */
  @IsOptional()
  @IsString()
  rpc_url?: string;

  /**
   * More endpoints of the same chain, tried in order after `rpc_url` when one cannot be reached
   * (docs/operator.md, "Several RPC endpoints"). After loading, every endpoint, first included.
   */
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(16)
  @IsString({ each: true })
  rpc_urls?: string[];

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
  @IntRange(0, Number.MAX_SAFE_INTEGER)
  computeUnitPrice?: number;
}

/**
 * `chain.rpc_url` may be a list (YAML) or comma-separated text (`TAPE_RPC_URL=a,b`), and
 * `chain.rpc_urls` lists more: afterwards `rpc_url` is the first endpoint (every place that
 * asks "is a chain named?" keeps working) and `rpc_urls` all of them, in order, without repeats.
 * Applied to the plain config before validation.
 */
export function normalizeRpcUrls(chain: Record<string, unknown> | undefined): void {
  if (!chain) return;
  const spelled = (value: unknown): unknown[] => {
    if (value === undefined || value === null || value === '') return [];
    if (Array.isArray(value)) return value as unknown[];
    if (typeof value === 'string') return value.split(',').map((v) => v.trim());
    return [value];
  };
  const all = [...spelled(chain.rpc_url), ...spelled(chain.rpc_urls)];
  if (all.length === 0) return;
  const unique = all.filter((v, i) => all.indexOf(v) === i);
  chain.rpc_url = unique[0];
  chain.rpc_urls = unique;
}

/** Every RPC endpoint of a loaded config, in the order they are tried. */
export function rpcEndpoints(config: ChainConfig): string[] {
  if (config.rpc_urls && config.rpc_urls.length > 0) return config.rpc_urls;
  return config.rpc_url ? [config.rpc_url] : [];
}
