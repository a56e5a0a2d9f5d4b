import { Module, OnModuleInit } from '@nestjs/common';
import { HealthRegistry } from '../health/health-registry';
import { SharedState } from './shared-state';

/** The shared Redis of replicas (storage.shared), for the modules that keep state in it. */
@Module({ providers: [SharedState], exports: [SharedState] })
export class SharedStateModule implements OnModuleInit {
  constructor(
    private readonly health: HealthRegistry,
    private readonly shared: SharedState,
  ) {}

  onModuleInit(): void {
    if (this.shared.enabled) this.health.register('shared-state', () => this.shared.checkHealth());
  }
}
