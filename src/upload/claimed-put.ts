import type { Readable } from 'node:stream';
import { ApiError } from '../http/api-error';
import { TrackClaim, TrackStore } from '../tracks/track-store';
import {
  TrackCommitmentMismatchError,
  TrackSizeMismatchError,
  TrackStoreError,
  TrackStoreUnavailableError,
} from '../tracks/track-errors';
import { uploadErrors } from './upload-error';

/**
 * Records which owner the bytes belong to (before looking for them: the collector's safety
 * rests on it, docs/tracks.md), then stores them, verified while streamed. A reference this
 * upload created is withdrawn when the bytes are refused. With `maxOwnerSegmentBytes`, a claim
 * that would bring the owner's `segment` references past it is refused with `overBudget()`.
 */
export async function putClaimed(
  store: TrackStore,
  claim: TrackClaim,
  body: Readable,
  budget?: { maxOwnerSegmentBytes: number; overBudget: () => ApiError },
): Promise<void> {
  const claimed = await store.claim(claim, { maxOwnerSegmentBytes: budget?.maxOwnerSegmentBytes });
  if (!claimed.accepted) throw budget!.overBudget();
  try {
    await store.put(claim.commitment, claim.size, body);
  } catch (err) {
    if (claimed.inserted) await store.unclaim(claim, claimed.recordedAt);
    if (err instanceof TrackCommitmentMismatchError) {
      throw uploadErrors.mismatch('the bytes do not match the commitment; nothing was kept');
    }
    if (err instanceof TrackSizeMismatchError) {
      throw uploadErrors.badRequest(`size mismatch: ${err.message}`);
    }
    if (err instanceof TrackStoreUnavailableError) {
      throw uploadErrors.unavailable('the track store cannot be reached; try again');
    }
    if (err instanceof TrackStoreError) throw uploadErrors.badRequest(err.message);
    throw err;
  }
}
