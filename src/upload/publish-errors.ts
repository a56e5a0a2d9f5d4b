import { ApiError } from '../http/api-error';

/** Errors of `POST /publish/{tape}` beyond the uploads' own (docs/uploads.md, "Publish"). */
export const publishErrors = {
  /**
   * The compare-and-swap would fail (the tape's `sequence` moved: a Publish, a rollback, an
   * alias change): the client re-reads the tape, re-plans and asks again.
   */
  conflict: (current: number, expected: number) =>
    new ApiError(
      409,
      'version_conflict',
      `version conflict: tape is at sequence ${current}, not ${expected}`,
    ),
  /** The certifier's one-line reason (a missing byte names its file). */
  notCertified: (reason: string) => new ApiError(422, 'not_certified', reason),
  /** A stored track of the tape's versions fails verification: the operator repairs it. */
  corrupt: (message: string) =>
    new ApiError(
      502,
      'integrity_failure',
      `${message}; the gateway's copy is corrupt: repair it (docs/tracks.md, "Repair") and publish again`,
    ),
  capacity: (capacity: number, kept: number) =>
    new ApiError(
      413,
      'payload_too_large',
      `insufficient capacity: tape has ${capacity} bytes of capacity, kept versions need ${kept}`,
    ),
};

/** Reads the tape's sequence back from a 409's message (the client's side). */
export function conflictSequenceOf(message: string | undefined): number | null {
  const found = /tape is at sequence (\d+),/.exec(message ?? '');
  return found ? Number(found[1]) : null;
}
