import { Module } from '@nestjs/common';
import { ChainService } from '../chain/chain.service';
import { MeteringModule } from '../metering/metering.module';
import { TracksModule } from '../tracks/tracks.module';
import { ObjectController } from './object.controller';
import { ObjectService } from './object.service';
import { TrackResolver } from './track-resolver';

/**
 * The object route (docs/object.md). Exports nothing. Needs the global ChainModule and
 * ConfigModule; imports the data plane and metering (its guard and byte budget).
 */
@Module({
  imports: [TracksModule, MeteringModule],
  controllers: [ObjectController],
  providers: [
    {
      provide: TrackResolver,
      useFactory: (chain: ChainService) => new TrackResolver(chain),
      inject: [ChainService],
    },
    ObjectService,
  ],
})
export class ObjectModule {}
