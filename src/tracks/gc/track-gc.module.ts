import { Module, OnModuleInit } from '@nestjs/common';
import { HealthRegistry } from '../../health/health-registry';
import { TracksModule } from '../tracks.module';
import { TrackGarbageCollector } from './track-gc.service';

/**
 * The track store's garbage collector (storage.gc). Part of the gateway (imported by the upload
 * module), not of the CLI: it runs where the store is written.
 */
@Module({
  imports: [TracksModule],
  providers: [TrackGarbageCollector],
  exports: [TrackGarbageCollector],
})
export class TrackGcModule implements OnModuleInit {
  constructor(
    private readonly health: HealthRegistry,
    private readonly gc: TrackGarbageCollector,
  ) {}

  onModuleInit(): void {
    this.health.registerDetail('track_gc', () => this.gc.stats());
  }
}
