import { Module, OnModuleInit } from '@nestjs/common';
import { HealthModule } from '../health/health.module';
import { HealthRegistry } from '../health/health-registry';
import { SharedState } from './shared-state';

/** The shared Redis of replicas (storage.shared), for the modules that keep state in it. */
@Module({ imports: [HealthModule], providers: [SharedState], exports: [SharedState] })
export class SharedStateModule implements OnModuleInit {
  constructor(
    private readonly health: HealthRegistry,
    private readonly shared: SharedState,
  ) {}

  onModuleInit(): void {
    if (this.shared.enabled) this.health.register('shared-state', () => this.shared.checkHealth());
  }
}
