import { Module } from '@nestjs/common';
import { TrackGcModule } from '../gc/track-gc.module';
import { TracksModule } from '../tracks.module';
import { CertificationBatcher } from './certification-batcher';
import { UploadController } from './upload.controller';
import { UploadService } from './upload.service';
import { UploadSlots } from './upload-slots';

/** `PUT /upload/{track}`: the write side of the data plane (docs/uploads.md). */
@Module({
  imports: [TracksModule, TrackGcModule],
  controllers: [UploadController],
  providers: [UploadService, CertificationBatcher, UploadSlots],
})
export class UploadModule {}
