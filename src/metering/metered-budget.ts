import { Reflector } from '@nestjs/core';
import type { BudgetName } from './metering-budgets';

/** The budget a route is metered against (set by `@Metered`, read by the guard). */
export const MeteredBudget = Reflector.createDecorator<BudgetName>();
