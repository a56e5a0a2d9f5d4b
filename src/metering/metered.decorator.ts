import { Reflector } from '@nestjs/core';
import type { BudgetName } from './metering-budgets';

/**
 * Meters a route (or every route of a controller) per client against a named budget:
 * `@Metered('site')`, `@Metered('object')`, `@Metered('upload')`, `@Metered('s3_write')`.
 * Routes without it (such as /healthz) are not metered.
 */
export const Metered = Reflector.createDecorator<BudgetName>();
