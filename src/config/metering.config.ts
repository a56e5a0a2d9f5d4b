import { Type } from 'class-transformer';
import { IsInt, IsOptional, IsString, Min, ValidateNested } from 'class-validator';

/** One throttling budget: `limit` requests per `ttl_secs` window per client. */
export class Budget {
  @IsInt()
  @Min(1)
  limit!: number;

  @IsInt()
  @Min(1)
  ttl_secs!: number;

  static of(limit: number, ttl_secs: number): Budget {
    return Object.assign(new Budget(), { limit, ttl_secs });
  }
}

/** `gateway.metering.*`: per-client budgets, trusted proxies and shared storage. */
export class MeteringConfig {
  /** CIDR ranges of proxy edges whose forwarding headers are believed. */
  @IsString({ each: true })
  trusted_proxies: string[] = [];

  /** When set, counters live in Redis so several gateways share one budget. */
  @IsOptional()
  @IsString()
  redis_url?: string;

  @ValidateNested()
  @Type(() => Budget)
  site: Budget = Budget.of(600, 60);

  @ValidateNested()
  @Type(() => Budget)
  object: Budget = Budget.of(1200, 60);

  /** Bytes served by the object route per client and window. */
  @IsInt()
  @Min(1)
  object_bytes = 2 * 1024 * 1024 * 1024;

  @ValidateNested()
  @Type(() => Budget)
  upload: Budget = Budget.of(6000, 60);

  @ValidateNested()
  @Type(() => Budget)
  s3_write: Budget = Budget.of(6000, 60);
}
