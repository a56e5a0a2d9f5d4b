import type { Readable } from 'node:stream';
import { ApiError } from '../http/api-error';
import { ClaimLimits, TrackClaim, TrackStore } from '../tracks/track-store';
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
 * upload created is withdrawn when the bytes are refused. A claim past the budget's limits
 * (ClaimLimits) is refused with `overBudget()`, after `makeRoom()` (when given) was awaited and
 * the claim tried once more.
 */
export async function putClaimed(
  store: TrackStore,
  claim: TrackClaim,
  body: Readable,
  budget?: ClaimLimits & { overBudget: () => ApiError; makeRoom?: () => Promise<unknown> },
): Promise<void> {
  let claimed = await store.claim(claim, budget);
  if (!claimed.accepted && budget?.makeRoom) {
    await budget.makeRoom();
    claimed = await store.claim(claim, budget);
  }
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
