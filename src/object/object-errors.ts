import { ApiError } from '../http/api-error';
import { unsatisfiedContentRange } from '../tracks/byte-range';

/** A refusal whose answer carries headers of its own (416: `Content-Range: bytes *\/size`). */
export class ObjectRefusal extends ApiError {
  constructor(
    status: number,
    code: string,
    message: string,
    readonly headers: Readonly<Record<string, string>>,
  ) {
    super(status, code, message);
  }
}

/**
 * The object route's refusals (docs/object.md, "Errors"): one stable `error.code` per condition,
 * so clients and monitoring can tell them apart without reading messages.
 */
export const objectErrors = {
  invalidAddress: () =>
    new ApiError(
      400,
      'invalid_track_address',
      'the track address is not base58(tape || commitment)',
    ),
  notFound: () => new ApiError(404, 'track_not_found', 'no such track on chain'),
  notCertified: () =>
    new ApiError(
      400,
      'track_not_certified',
      'the track is not certified: its bytes have not been stored by a gateway',
    ),
  tapeExpired: () => new ApiError(410, 'tape_expired', "the track's tape reservation has expired"),
  unsatisfiable: (size: number) =>
    new ObjectRefusal(
      416,
      'range_not_satisfiable',
      `no requested range starts inside the ${size}-byte object`,
      { 'content-range': unsatisfiedContentRange(size) },
    ),
  contentMissing: () =>
    new ApiError(502, 'content_unavailable', 'the track bytes are missing from storage'),
  integrityFailure: () =>
    new ApiError(
      502,
      'integrity_failure',
      'the stored bytes fail their on-chain commitment; they are not served',
    ),
  storeUnavailable: () =>
    new ApiError(503, 'store_unavailable', 'the track store cannot be reached; try again'),
  chainUnavailable: () =>
    new ApiError(503, 'chain_unavailable', 'the chain RPC cannot be reached; try again'),
  methodNotAllowed: () =>
    new ApiError(405, 'method_not_allowed', 'the object route answers GET and HEAD only'),
};
