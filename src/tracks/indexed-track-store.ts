import { storeKeyHex } from './commitment';
import type { TrackReferenceIndex } from './track-reference-index';
import type { TrackReferences } from './track-references';
import { ClaimLimits, ClaimOutcome, ReferencedBlob, TrackClaim, TrackStore } from './track-store';

/**
 * A writer's track store, whose references live in an index (docs/tracks.md, "Garbage
 * collection"): the file store's SQLite index beside its directory, or the S3 store's
 * TrackReferences (SQLite, or the replicas' shared Redis). Claims and listings go to the index
 * as they are; how a release deletes the bytes is each store's own.
 */
export abstract class IndexedTrackStore extends TrackStore {
  /** The index, ready for use (a store may open it, or its directory, on first use). */
  protected abstract referenceIndex(): Promise<TrackReferenceIndex | TrackReferences>;

  async claim(claim: TrackClaim, limits: ClaimLimits = {}): Promise<ClaimOutcome> {
    storeKeyHex(claim.commitment);
    return (await this.referenceIndex()).claim(claim, limits);
  }

  async claimMany(claims: TrackClaim[]): Promise<void> {
    for (const claim of claims) storeKeyHex(claim.commitment);
    await (await this.referenceIndex()).claimMany(claims);
  }

  async referencesOfTape(tape: string): Promise<ReferencedBlob[]> {
    return (await this.referenceIndex()).referencesOfTape(tape);
  }

  async unclaim(claim: TrackClaim, recordedAt: number): Promise<void> {
    await (await this.referenceIndex()).unclaim(claim, recordedAt);
  }

  async listReferenced(after: Buffer | undefined, limit: number): Promise<ReferencedBlob[]> {
    return (await this.referenceIndex()).list(after, limit);
  }
}
