import { IsBase58Address } from '../chain/address-constraint';

/** `GET|HEAD /object/{track}`: the track's address. */
export class ObjectTrackParams {
  @IsBase58Address({ message: 'the track address is not a base58 public key' })
  track!: string;
}
