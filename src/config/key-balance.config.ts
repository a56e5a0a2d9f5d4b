import { IsOptional } from 'class-validator';
import { IntRange } from './config-decorators';

/**
 * `gateway.key_balance.*`: when the storage-authority key (the writer's own key: it pays the
 * fees of certification and of S3 writes, and their rent) is too poor to keep the gateway
 * writing. Below the threshold /healthz says `degraded`; below one transaction's fee, uploads
 * and S3 writes are refused at once (docs/operator.md, "The key's balance").
 */
export class KeyBalanceConfig {
  /**
   * Lamports the key must hold to count as funded. Unset: an hour of expected fees,
   * `transactions_per_hour` x (5,000 lamports per signature + the priority fee at
   * `chain.compute_unit_price` for a transaction's 1.4 M compute-unit maximum).
   */
  @IsOptional()
  @IntRange(0, Number.MAX_SAFE_INTEGER)
  min_lamports?: number;

  /**
   * Transactions the key is expected to pay for in an hour, for the default threshold. 3,600:
   * one a second, a busy writer (a certification batch carries about 30 uploads; an S3 write is
   * one transaction).
   */
  @IntRange(1, 10_000_000)
  transactions_per_hour = 3600;

  /** How often the balance is read while the key is funded (also the metric's freshness). */
  @IntRange(1, 3600)
  refresh_secs = 30;
}
