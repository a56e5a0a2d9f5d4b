import { ValidateBy } from 'class-validator';
import { parseAddress } from '../chain/tape-label';
import { parseVersionedTrack } from './versioned-track';

/**
 * `GET|HEAD /object/{track}`: the track's address: a Track account's (32 bytes), or a file of a
 * published version (64 bytes, tape || commitment; versioned-track.ts), both base58.
 */
export class ObjectTrackParams {
  @ValidateBy(
    {
      name: 'isTrackAddress',
      validator: {
        validate: (value) =>
          typeof value === 'string' &&
          (parseAddress(value) !== null || parseVersionedTrack(value) !== null),
      },
    },
    { message: 'the track address is not a base58 public key' },
  )
  track!: string;
}
