import { applyDecorators } from '@nestjs/common';
import { IsInt, IsOptional, IsString, Matches, Max, Min } from 'class-validator';

/**
 * Decorators the config classes share. Each applies its checks in the order the same decorators
 * stacked on a property would (the last one first), so a wrong value gets the same first message.
 */

/** An integer from `min` to `max` (no upper bound without one). */
export function IntRange(min: number, max?: number): PropertyDecorator {
  const bounds = max === undefined ? [Min(min)] : [Max(max), Min(min)];
  return applyDecorators(...bounds, IsInt());
}

/** An optional `redis://` or `rediss://` URL (metering's Redis, the replicas' shared Redis). */
export function OptionalRedisUrl(): PropertyDecorator {
  return applyDecorators(
    Matches(/^rediss?:\/\//, { message: 'must be a redis:// or rediss:// URL' }),
    IsString(),
    IsOptional(),
  );
}
