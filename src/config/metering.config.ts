import { Type } from 'class-transformer';
import {
  IsBoolean,
  IsIn,
  IsString,
  ValidateBy,
  ValidateNested,
  ValidationOptions,
} from 'class-validator';
import { IntRange, OptionalRedisUrl } from './config-decorators';
import { isIP } from 'node:net';

/** One throttling budget: `limit` requests per `ttl_secs` window per client. */
export class Budget {
  @IntRange(1)
  limit = 1200;

  @IntRange(1)
  ttl_secs = 60;

  static of(limit: number, ttl_secs: number): Budget {
    return Object.assign(new Budget(), { limit, ttl_secs });
  }
}

// One class per budget, so that setting only `limit` (say TAPE__GATEWAY__METERING__SITE__LIMIT)
// keeps that budget's own default window, and the other way round.
class SiteBudget extends Budget {}
class ObjectBudget extends Budget {}
class UploadBudget extends Budget {
  override limit = 6000;
}
class S3WriteBudget extends Budget {
  override limit = 6000;
}

/** `a.b.c.d/n`, `x::y/n`, or a bare address (a single host). Checked again when metering starts. */
function isCidr(value: unknown): boolean {
  if (typeof value !== 'string' || value.length > 64) return false;
  const slash = value.indexOf('/');
  const address = slash === -1 ? value : value.slice(0, slash);
  const family = isIP(address);
  if (family === 0) return false;
  if (slash === -1) return true;
  const prefix = value.slice(slash + 1);
  if (!/^\d{1,3}$/.test(prefix)) return false;
  return Number(prefix) <= (family === 4 ? 32 : 128);
}

function IsCidr(options?: ValidationOptions): PropertyDecorator {
  return ValidateBy(
    {
      name: 'isCidr',
      validator: {
        validate: isCidr,
        defaultMessage: () => 'each value must be a CIDR range such as 10.0.0.0/8 or 2001:db8::/32',
      },
    },
    options,
  );
}

/** Which header a trusted proxy appends the client address to. */
export type ForwardedHeaderName = 'x-forwarded-for' | 'forwarded';

/** `gateway.metering.*`: per-client budgets, trusted proxies and shared storage. */
export class MeteringConfig {
  /** Off = no budget is counted or enforced (benchmarks, or metering done by an edge in front). */
  @IsBoolean()
  enabled = true;

  /** CIDR ranges of proxy edges whose forwarding headers are believed. */
  @IsCidr({ each: true })
  trusted_proxies: string[] = [];

  /**
   * The header the trusted proxies append to. Only one is read: a proxy that sets
   * X-Forwarded-For passes a client's own `Forwarded` header through untouched, so reading
   * both would let clients choose their address.
   */
  @IsIn(['x-forwarded-for', 'forwarded'])
  forwarded_header: ForwardedHeaderName = 'x-forwarded-for';

  /** When set, counters live in Redis so several gateways share one budget. */
  @OptionalRedisUrl()
  redis_url?: string;

  /** Longest wait for one Redis command; past it the request is served unmetered. */
  @IntRange(5, 5000)
  redis_timeout_ms = 100;

  /**
   * > 0: a client this gateway has heard about from Redis within this many ms is answered from
   * what it knows, and its hits are sent as one command per period: hot clients cost no round
   * trip per request; other gateways' hits are seen that late. 0: every hit is counted in Redis
   * before it is answered, exact across gateways.
   */
  @IntRange(0, 1000)
  redis_sync_ms = 10;

  /** Prefix of every Redis key, so several deployments can share one Redis. */
  @IsString()
  redis_key_prefix = 'tape:metering:';

  /** Site reads. A page and its ~50 assets load at once many times over before this is reached. */
  @ValidateNested()
  @Type(() => SiteBudget)
  site: Budget = new SiteBudget();

  @ValidateNested()
  @Type(() => ObjectBudget)
  object: Budget = new ObjectBudget();

  /** Bytes served by the object route per client and `object_bytes_ttl_secs` window. */
  @IntRange(1)
  object_bytes = 2 * 1024 * 1024 * 1024;

  @IntRange(1)
  object_bytes_ttl_secs = 60;

  @ValidateNested()
  @Type(() => UploadBudget)
  upload: Budget = new UploadBudget();

  @ValidateNested()
  @Type(() => S3WriteBudget)
  s3_write: Budget = new S3WriteBudget();
}
