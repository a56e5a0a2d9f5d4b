import { applyDecorators, UseGuards } from '@nestjs/common';
import { MeteredBudget } from './metered-budget';
import type { BudgetName } from './metering-budgets';
import { MeteringGuard } from './metering.guard';

/**
 * Meters a route (or every route of a controller) per client against a named budget:
 * `@Metered('site')`, `@Metered('object')`, `@Metered('upload')`, `@Metered('s3_write')`.
 * It names the budget and installs the guard on that route, so only metered routes pass
 * through it (no global guard); the controller's module imports MeteringModule. Routes without
 * it (such as /healthz) are not metered.
 */
export function Metered(budget: BudgetName): ClassDecorator & MethodDecorator {
  return applyDecorators(MeteredBudget(budget), UseGuards(MeteringGuard));
}
