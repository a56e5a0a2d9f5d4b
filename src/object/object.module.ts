import { Module } from '@nestjs/common';
import { ChainModule } from '../chain/chain.module';
import { ChainReader } from '../chain/chain-reader';
import { MainListenerModule } from '../http/main-listener';
import { MeteringModule } from '../metering/metering.module';
import { TracksModule } from '../tracks/tracks.module';
import { StoreVersionNodes } from '../versions/store-version-nodes';
import { VersionsModule } from '../versions/versions.module';
import { ObjectController } from './object.controller';
import { RawTrackController } from './raw-track.controller';
import { RawTrackService } from './raw-track.service';
import { ObjectAnswerWriter } from './object-answer-writer';
import { ObjectEdge } from './object-edge';
import { ObjectService } from './object.service';
import { StreamedBytesCollector } from './streamed-bytes-collector';
import { TrackResolver } from './track-resolver';

/** Sent chunk buffers are freed after this many streamed bytes (streamed-bytes-collector.ts). */
const COLLECT_EVERY_BYTES = 8 * 1024 * 1024;

/**
 * The object route (docs/object.md). Exports nothing: its warm reads register with the main
 * listener as an edge route (ObjectEdge); the controller and the edge write their answers with
 * the one ObjectAnswerWriter. Needs the global ChainModule and ConfigModule; imports the data
 * plane and metering (its guard and byte budget).
 */
@Module({
  imports: [TracksModule, VersionsModule, MeteringModule, ChainModule, MainListenerModule],
  controllers: [ObjectController, RawTrackController],
  providers: [
    {
      provide: TrackResolver,
      useFactory: (chain: ChainReader, versions: StoreVersionNodes) =>
        new TrackResolver(chain, {}, versions),
      inject: [ChainReader, StoreVersionNodes],
    },
    {
      provide: StreamedBytesCollector,
      useFactory: () => new StreamedBytesCollector(COLLECT_EVERY_BYTES),
    },
    ObjectService,
    ObjectAnswerWriter,
    ObjectEdge,
    RawTrackService,
  ],
})
export class ObjectModule {}
