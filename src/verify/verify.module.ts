import { Module } from '@nestjs/common';
import { ChainModule } from '../chain/chain.module';
import { MeteringModule } from '../metering/metering.module';
import { ObjectReader } from '../tracks/object-reader';
import { TrackStore } from '../tracks/track-store';
import { TracksModule } from '../tracks/tracks.module';
import { ProofController } from './proof.controller';
import { ProofService } from './proof.service';
import { VerifierModuleController } from './verifier-module.controller';
import { VersionProofs } from './version-proofs';

/**
 * Reads anyone can verify (docs/verify.md): proofs of site and object answers, and the verifier
 * module for browsers. Reads the chain and the track store only, on writers and readers alike.
 */
@Module({
  imports: [TracksModule, MeteringModule, ChainModule],
  controllers: [ProofController, VerifierModuleController],
  providers: [
    {
      provide: VersionProofs,
      inject: [TrackStore, ObjectReader],
      useFactory: (store: TrackStore, objects: ObjectReader) => new VersionProofs(store, objects),
    },
    ProofService,
  ],
})
export class VerifyModule {}
