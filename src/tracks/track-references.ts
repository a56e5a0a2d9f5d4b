import type {
  ClaimLimits,
  ClaimOutcome,
  ReferencedBlob,
  TrackClaim,
  TrackReference,
} from './track-store';

/**
 * Port: who references each stored blob (docs/tracks.md, "Garbage collection"), as the S3
 * track store keeps it: in the writer's SQLite (one writer), or in the replicas' shared Redis
 * (several writers on one bucket: every writer's references in one place, so no writer's
 * collector deletes bytes another writer just recorded).
 *
 * Deletion is fenced: `fenceDeletion` marks a blob as being deleted only while no reference is
 * left (atomically with that check), and a writer that has recorded its claim calls
 * `awaitDeletion` before it looks for the bytes. Either the claim came first (the fence is
 * refused and the bytes kept) or the fence did (the writer waits for the deletion to end and
 * then finds the bytes absent and writes them again).
 */
export abstract class TrackReferences {
  /** Records (or refreshes) a reference, refused (nothing recorded) past one of `limits`. */
  abstract claim(claim: TrackClaim, limits?: ClaimLimits): Promise<ClaimOutcome>;

  /** Records (or refreshes) many references at once, with no limit. */
  abstract claimMany(claims: TrackClaim[]): Promise<void>;

  /** Every blob the tape's owners reference, with the tape's references only. */
  abstract referencesOfTape(tape: string): Promise<ReferencedBlob[]>;

  /** Withdraws a reference this claim inserted, unless another upload refreshed it since. */
  abstract unclaim(claim: TrackClaim, recordedAt: number): Promise<void>;

  /** Up to `limit` referenced commitments after `after` (byte order), with their references. */
  abstract list(after: Buffer | undefined, limit: number): Promise<ReferencedBlob[]>;

  /** Drops these references unless one was recorded at or after `before` (a fresh upload). */
  abstract drop(commitment: Buffer, references: TrackReference[], before: number): Promise<void>;

  /**
   * When no reference is left: marks the blob as being deleted (for at most `ttlMs`) and returns
   * a token for endDeletion; null when a reference remains or another deletion runs.
   */
  abstract fenceDeletion(commitment: Buffer, ttlMs: number): Promise<string | null>;

  abstract endDeletion(commitment: Buffer, token: string): Promise<void>;

  /** Resolves once no deletion of this blob is in progress. */
  abstract awaitDeletion(commitment: Buffer): Promise<void>;

  abstract close(): Promise<void>;
}
