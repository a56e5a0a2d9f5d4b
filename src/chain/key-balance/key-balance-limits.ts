import { LAMPORTS_PER_SOL } from '@solana/web3.js';
import { ChainConfig } from '../../config/chain.config';
import { KeyBalanceConfig } from '../../config/key-balance.config';

/** What Solana charges per signature; the gateway's transactions carry one (its own key). */
export const LAMPORTS_PER_SIGNATURE = 5000;
/** A transaction's compute-unit ceiling: the most a priority fee can be charged on. */
const MAX_COMPUTE_UNITS = 1_400_000;

export interface KeyBalanceLimits {
  /** Below this the key cannot pay for the next hour of expected fees: /healthz is degraded. */
  thresholdLamports: number;
  /** Below this the key cannot pay for one more transaction: writes are refused at once. */
  perTransactionLamports: number;
  /** How long a reading of a funded key is trusted. */
  refreshMs: number;
}

/**
 * The most one of the gateway's transactions costs in fees: one signature plus the priority
 * fee (`chain.compute_unit_price`, micro-lamports per unit) on the compute-unit maximum.
 * Rent (the accounts an S3 write creates) is not a fee and is not counted here.
 */
export function perTransactionLamports(computeUnitPrice = 0): number {
  return LAMPORTS_PER_SIGNATURE + Math.ceil((computeUnitPrice * MAX_COMPUTE_UNITS) / 1_000_000);
}

export function keyBalanceLimits(config: KeyBalanceConfig, chain: ChainConfig): KeyBalanceLimits {
  const perTransaction = perTransactionLamports(chain.computeUnitPrice);
  return {
    thresholdLamports: config.min_lamports ?? config.transactions_per_hour * perTransaction,
    perTransactionLamports: perTransaction,
    refreshMs: config.refresh_secs * 1000,
  };
}

/** Exact SOL for a log line or a refusal: `18000000` -> `0.018`. */
export function solText(lamports: number): string {
  const whole = Math.floor(lamports / LAMPORTS_PER_SOL);
  const fraction = String(lamports % LAMPORTS_PER_SOL)
    .padStart(9, '0')
    .replace(/0+$/, '');
  return fraction ? `${whole}.${fraction}` : String(whole);
}
