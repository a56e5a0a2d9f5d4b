import { ValidateBy } from 'class-validator';
import { parseVersionedTrack } from './versioned-track';

/**
 * `GET|HEAD /object/{track}`: a file of a published version, base58(tape || commitment)
 * (64 bytes; versioned-track.ts). Track accounts (32-byte addresses) no longer exist.
 */
export class ObjectTrackParams {
  @ValidateBy(
    {
      name: 'isTrackAddress',
      validator: {
        validate: (value) => typeof value === 'string' && parseVersionedTrack(value) !== null,
      },
    },
    { message: 'the track address is not base58(tape || commitment)' },
  )
  track!: string;
}
