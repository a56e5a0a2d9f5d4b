import { Module } from '@nestjs/common';
import { HealthModule } from '../health/health.module';
import { GatewayMetrics } from './gateway-metrics';

/**
 * The app's metrics registry. A room that has figures to show imports this module and registers
 * its collectors in `GatewayMetrics.registry` when it starts, as it registers health checks.
 */
@Module({
  imports: [HealthModule],
  providers: [GatewayMetrics],
  exports: [GatewayMetrics],
})
export class MetricsModule {}
