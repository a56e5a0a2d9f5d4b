import { Module } from '@nestjs/common';
import { TrackStore } from '../tracks/track-store';
import { TracksModule } from '../tracks/tracks.module';
import { StoreVersionNodes } from './store-version-nodes';

/**
 * Site versions as the gateway reads them: verified version nodes from its own track store,
 * decoded once into one LRU shared by the site routes and the object route.
 */
@Module({
  imports: [TracksModule],
  providers: [
    {
      provide: StoreVersionNodes,
      inject: [TrackStore],
      useFactory: (store: TrackStore) => new StoreVersionNodes(store),
    },
  ],
  exports: [StoreVersionNodes],
})
export class VersionsModule {}
