import type { ThrottlerOptions } from '@nestjs/throttler';
import type { MeteringConfig } from '../config/metering.config';

/** The request budgets a route can be metered against (`@Metered(name)`, `consume(ip, name)`). */
export const BUDGET_NAMES = ['site', 'object', 'upload', 's3_write'] as const;
export type BudgetName = (typeof BUDGET_NAMES)[number];

/** The byte budget of the object route (`chargeBytes`). */
export const OBJECT_BYTES = 'object_bytes';

export interface BudgetRule {
  /** Requests (or bytes) allowed per client and window. */
  limit: number;
  windowMs: number;
  /** Human words for the 429 message. */
  label: string;
}

const LABELS: Record<BudgetName | typeof OBJECT_BYTES, string> = {
  site: 'site reads',
  object: 'object reads',
  upload: 'uploads',
  s3_write: 'S3 writes',
  object_bytes: 'object bytes served',
};

export type BudgetTable = Readonly<Record<BudgetName | typeof OBJECT_BYTES, BudgetRule>>;

export function budgetsFrom(config: MeteringConfig): BudgetTable {
  const rule = (name: BudgetName): BudgetRule => ({
    limit: config[name].limit,
    windowMs: config[name].ttl_secs * 1000,
    label: LABELS[name],
  });
  return {
    site: rule('site'),
    object: rule('object'),
    upload: rule('upload'),
    s3_write: rule('s3_write'),
    object_bytes: {
      limit: config.object_bytes,
      windowMs: config.object_bytes_ttl_secs * 1000,
      label: LABELS.object_bytes,
    },
  };
}

/** The same budgets as @nestjs/throttler named throttlers (its options, read by ThrottlerGuard). */
export function throttlersFrom(budgets: BudgetTable): ThrottlerOptions[] {
  return BUDGET_NAMES.map((name) => ({
    name,
    limit: budgets[name].limit,
    ttl: budgets[name].windowMs,
  }));
}
