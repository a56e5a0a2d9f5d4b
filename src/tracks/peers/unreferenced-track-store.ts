import { ClaimOutcome, ReferencedBlob, ReleaseOutcome, TrackStore } from '../track-store';

/**
 * A track store that keeps no reference index: a reader that stores nothing and never runs the
 * collector (docs/tracks.md, "Garbage collection"). Claims are accepted and forgotten, listings
 * are empty, and a release deletes nothing.
 */
export abstract class UnreferencedTrackStore extends TrackStore {
  claim(): Promise<ClaimOutcome> {
    return Promise.resolve({ accepted: true, inserted: false, recordedAt: Date.now() });
  }

  claimMany(): Promise<void> {
    return Promise.resolve();
  }

  referencesOfTape(): Promise<ReferencedBlob[]> {
    return Promise.resolve([]);
  }

  unclaim(): Promise<void> {
    return Promise.resolve();
  }

  listReferenced(): Promise<ReferencedBlob[]> {
    return Promise.resolve([]);
  }

  release(): Promise<ReleaseOutcome> {
    return Promise.resolve({ outcome: 'absent' });
  }
}
