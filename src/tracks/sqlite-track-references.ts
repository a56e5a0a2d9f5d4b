import { dirname } from 'node:path';
import { TrackReferenceIndex } from './track-reference-index';
import { TrackReferences } from './track-references';
import type {
  ClaimLimits,
  ClaimOutcome,
  ReferencedBlob,
  TrackClaim,
  TrackReference,
} from './track-store';
import { makeDirectory } from '../config/directories';

/**
 * One writer's references in SQLite (`<data_dir>/tracks.references.sqlite`). Claims, the
 * re-check and deletion all run in this process, whose per-track lock orders them: the fence is
 * the reference count itself.
 */
export class SqliteTrackReferences extends TrackReferences {
  private index?: TrackReferenceIndex;

  constructor(private readonly path: string) {
    super();
  }

  async claim(claim: TrackClaim, limits?: ClaimLimits): Promise<ClaimOutcome> {
    return this.db().claim(claim, limits);
  }

  async claimMany(claims: TrackClaim[]): Promise<void> {
    this.db().claimMany(claims);
  }

  async referencesOfTape(tape: string): Promise<ReferencedBlob[]> {
    return this.db().referencesOfTape(tape);
  }

  async unclaim(claim: TrackClaim, recordedAt: number): Promise<void> {
    this.db().unclaim(claim, recordedAt);
  }

  async list(after: Buffer | undefined, limit: number): Promise<ReferencedBlob[]> {
    return this.db().list(after, limit);
  }

  async drop(commitment: Buffer, references: TrackReference[], before: number): Promise<void> {
    this.db().drop(commitment, references, before);
  }

  async fenceDeletion(commitment: Buffer): Promise<string | null> {
    return this.db().referenceCount(commitment) > 0 ? null : 'local';
  }

  async endDeletion(): Promise<void> {}

  async awaitDeletion(): Promise<void> {}

  async close(): Promise<void> {
    this.index?.close();
  }

  /** Opened on first use: a reader that never writes creates no database. */
  private db(): TrackReferenceIndex {
    if (!this.index) {
      makeDirectory(dirname(this.path));
      this.index = new TrackReferenceIndex(this.path);
    }
    return this.index;
  }
}
