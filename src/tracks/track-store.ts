import type { Readable } from 'node:stream';

export interface TrackStoreStats {
  backend: string;
  /** Tracks stored by this process since it started. */
  puts: number;
  bytesWritten: number;
  /** Puts refused: size or commitment mismatch, interrupted body. */
  rejectedPuts: number;
  /** Track bytes read from storage (whole chunks: verification reads the chunk a range ends in). */
  bytesRead: number;
  chunksVerified: number;
  integrityFailures: number;
  /** Stored copies that failed verification and were replaced by a verified upload. */
  quarantined: number;
  /** Tracks whose stored bytes failed verification since start-up (reads or uploads). */
  corruptTracks: number;
  /** The latest few of them (hex commitments, newest last). */
  recentCorruptTracks: string[];
  /** Blobs the garbage collector deleted, and their bytes. */
  collectedTracks: number;
  collectedBytes: number;
  /**
   * Verified copies kept on local disk (a cache file and its list) that failed their check
   * when read again: each was dropped and the bytes fetched and verified again.
   */
  cacheMismatches?: number;
  /** Peer gateways left for the next one, by peer origin and reason (docs/peers.md). */
  peerFailures?: { peer: string; reason: string; count: number }[];
  /** Space left on the store's volume, when the backend knows it. */
  freeBytes?: number;
  totalBytes?: number;
}

/** `track`: the owner's own bytes (blob or manifest); `segment`: a segment of a manifest track. */
export type TrackRole = 'track' | 'segment';

/** What an upload records before storing bytes: which track account they belong to. */
export interface TrackClaim {
  commitment: Buffer;
  /** The owner track account (base58): the blob or manifest track, or a segment's manifest. */
  track: string;
  tape: string;
  role: TrackRole;
  size: number;
}

/**
 * Limits a claim checks atomically with recording it (refused: nothing recorded).
 * `maxOwnerSegmentBytes`: the owner's `segment` references, this one included, in bytes.
 * `maxTapeBytes`: the distinct blobs any owner of the claim's tape references, this one
 * included, in bytes (the tape's bytes in the store: staged and kept together).
 */
export interface ClaimLimits {
  maxOwnerSegmentBytes?: number;
  maxTapeBytes?: number;
}

/** Stored copies that failed verification (for /healthz details; never fails readiness). */
export interface TrackIntegrityReport {
  corruptTracks: number;
  /** Hex commitments, newest last. */
  recentCorruptTracks: string[];
  quarantined: number;
}

/** `inserted`: the reference is new (an upload that then fails withdraws it with `unclaim`). */
export interface ClaimOutcome {
  accepted: boolean;
  inserted: boolean;
  recordedAt: number;
}

export interface TrackReference {
  track: string;
  tape: string;
  role: TrackRole;
  size: number;
  /** Unix ms of the latest upload that recorded it. */
  recordedAt: number;
}

export interface ReferencedBlob {
  commitment: Buffer;
  references: TrackReference[];
}

/** What `release` did: bytes deleted, kept (a reference remains or appeared), or none stored. */
export type ReleaseOutcome =
  { outcome: 'deleted'; bytes: number } | { outcome: 'kept' } | { outcome: 'absent' };

/**
 * Where track bytes live (the DI token). Storage is not trusted: every read is verified against
 * the commitment, which callers take from the chain. Commitments are 32-byte Buffers; sizes are
 * the track's byte length, which the commitment binds.
 */
export abstract class TrackStore {
  abstract has(commitment: Buffer): Promise<boolean>;

  /**
   * The byte length storage claims for a track, or undefined when absent. Untrusted, but safe to
   * pass on to the verified reads: the commitment binds the size, so a wrong one fails there.
   * (A manifest track's own length is not on chain: its record holds the object's size.)
   */
  abstract storedSize(commitment: Buffer): Promise<number | undefined>;

  /**
   * Stores a track from a stream, hashing while writing. Resolves once the bytes and the
   * chunk list are durable. Rejects with TrackSizeMismatchError, TrackCommitmentMismatchError or
   * TrackUploadInterruptedError and leaves nothing behind. Already stored: the body is still
   * read and checked, nothing is written. Concurrent puts of one track are safe.
   */
  abstract put(commitment: Buffer, size: number, body: Readable): Promise<void>;

  /** The chunk-hash list (32 bytes per chunk), verified against the commitment. Shared: read only. */
  abstract readChunkHashes(commitment: Buffer, size: number): Promise<Buffer>;

  /**
   * A stream of bytes start..endInclusive (0 <= start <= endInclusive < size). It reads only
   * the chunks the range touches, verifies each before emitting any of it, and fails with an
   * IntegrityError (emitting none of the bad bytes) or TrackNotFoundError. Backpressure holds:
   * a slow consumer keeps about one chunk in memory.
   */
  abstract openRange(
    commitment: Buffer,
    size: number,
    start: number,
    endInclusive: number,
  ): Readable;

  /**
   * Records that `claim.track` references these bytes (refreshing its time), before they are
   * put or found already stored. Refuses (accepted false, nothing recorded) a claim that would
   * pass one of `limits` (ClaimLimits).
   */
  abstract claim(claim: TrackClaim, limits?: ClaimLimits): Promise<ClaimOutcome>;

  /**
   * Records (or refreshes) many references at once, with no limit: one transaction or one round
   * trip where the index allows (a version's tracks, recorded when it is certified).
   */
  abstract claimMany(claims: TrackClaim[]): Promise<void>;

  /**
   * Every blob the tape's owners reference, each with the tape's references only: the
   * collector's targeted check of one tape (docs/tracks.md, "Garbage collection").
   */
  abstract referencesOfTape(tape: string): Promise<ReferencedBlob[]>;

  /** Withdraws a reference `claim` inserted at `recordedAt` (unless refreshed since). */
  abstract unclaim(claim: TrackClaim, recordedAt: number): Promise<void>;

  /** Referenced blobs after `after` in byte order, at most `limit`: the collector's cursor. */
  abstract listReferenced(after: Buffer | undefined, limit: number): Promise<ReferencedBlob[]>;

  /**
   * Drops `dead` references of a blob unless recorded at or after `decidedAt`, then deletes the
   * bytes when no reference is left — safely against an upload claiming them meanwhile
   * (docs/tracks.md, "Garbage collection").
   */
  abstract release(
    commitment: Buffer,
    dead: TrackReference[],
    decidedAt: number,
  ): Promise<ReleaseOutcome>;

  /** Deletes a track; false when it was not there. */
  abstract remove(commitment: Buffer): Promise<boolean>;

  abstract stats(): Promise<TrackStoreStats>;

  /** What failed verification since start-up; synchronous, for /healthz details. */
  abstract integrity(): TrackIntegrityReport;

  /** Rejects with a short reason when the store cannot take writes (for /healthz). */
  abstract checkHealth(): Promise<void>;
}
