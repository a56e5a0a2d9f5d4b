import { applyDecorators } from '@nestjs/common';
import { IsInt, Max, Min } from 'class-validator';

/**
 * An integer from `min` to `max` (no upper bound without one): `@IsInt() @Min(min) @Max(max)`
 * as one decorator, its checks registered in that stacked order, so the first message a wrong
 * value gets is the same.
 */
export function IntRange(min: number, max?: number): PropertyDecorator {
  const bounds = max === undefined ? [Min(min)] : [Max(max), Min(min)];
  return applyDecorators(...bounds, IsInt());
}
