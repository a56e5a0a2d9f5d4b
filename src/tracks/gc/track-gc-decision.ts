import type { TapeRecord } from '../../chain/account-layouts';
import { keptSet } from '../../chain/tape-history';
import type { TrackGcConfig } from '../../config/storage.config';
import type { TrackReference } from '../track-store';
import { parseStagingOwner, parseVersionOwner, StagingOwner, VersionOwner } from './version-owner';

/**
 * What the chain says about the tapes a batch of references names, read once per batch by
 * chain-facts-reader.ts: the verdicts below are pure and read nothing themselves.
 */
export interface ChainFacts {
  tapes: ReadonlyMap<string, TapeRecord | null>;
  /** Chain time, unix seconds. */
  chainNow: number;
  genesisTime: number;
  epochDurationSecs: number;
}

export type ReferenceVerdict =
  | 'live'
  /**
   * Live for now, but the chain or the clock will settle it soon: a version certified and not
   * published yet, bytes staged on the tape's current version. The collector checks the tape
   * again at its next pass (docs/tracks.md, "Garbage collection": targeted checks).
   */
  | 'pending'
  /**
   * Neither a version nor a staging owner: a per-file Track account recorded by a gateway before
   * program 1.2.0, which has no such accounts. Dropped once older than the pending grace.
   */
  | 'unknown-owner'
  /** The tape expired longer ago than the grace period. */
  | 'tape-expired'
  /** A version owner whose root at its number is not in the tape's kept set any more. */
  | 'version-dropped'
  /** Staged on a version the tape has moved past (published, or published by another writer). */
  | 'staged-superseded'
  /** Staged on the tape's current version longer ago than the pending grace. */
  | 'staged-abandoned';

/** Verdicts that keep the bytes. */
export function keeps(verdict: ReferenceVerdict): boolean {
  return verdict === 'live' || verdict === 'pending';
}

/**
 * Whether one reference still keeps its bytes. Pure: the collector reads the chain once per
 * batch and asks this for each reference. `decidedAt` (unix ms) is when the collector started
 * looking: references recorded within the pending grace before it are kept whatever the chain
 * says (an RPC node may lag an upload or a Publish).
 */
export function judgeReference(
  ref: TrackReference,
  chain: ChainFacts,
  config: Pick<TrackGcConfig, 'expired_grace_secs' | 'pending_grace_secs' | 'rebase_grace_secs'>,
  decidedAt: number,
  /** The blob's other references: whether a later version of the tape took staged bytes in. */
  siblings: readonly TrackReference[] = [],
): ReferenceVerdict {
  const ageMs = decidedAt - ref.recordedAt;
  const version = parseVersionOwner(ref.track);
  if (version) return judgeVersionReference(version, ageMs, chain, config);
  const staged = parseStagingOwner(ref.track);
  if (staged) {
    return judgeStagedReference(staged, ageMs, chain, config, publishedSince(staged, siblings));
  }
  return ageMs >= config.pending_grace_secs * 1000 ? 'unknown-owner' : 'live';
}

/**
 * A certified version's track (recorded by the publish service under a version owner): kept
 * while the tape keeps the version, i.e. its history table holds that number with that root
 * (the program evicts every entry outside the kept set: current ∪ aliases ∪ newest `keep`).
 * Version numbers only grow, so once the tape's `latest_version` reaches the owner's number
 * the table decides for good, at once: a node that lags shows an older table, under which the
 * version is still to come (pending).
 * Still to come, it is kept for the pending grace after it was certified (the gateway records it
 * before the Publish is sent, let alone confirmed), then dropped: that Publish never landed.
 */
function judgeVersionReference(
  version: VersionOwner,
  ageMs: number,
  chain: ChainFacts,
  config: Pick<TrackGcConfig, 'expired_grace_secs' | 'pending_grace_secs'>,
): ReferenceVerdict {
  const withinGrace = ageMs < config.pending_grace_secs * 1000;
  // Owners recorded before they carried a number: the grace, then the pointer.
  if (version.version === undefined && withinGrace) return 'live';
  const tape = chain.tapes.get(version.tape) ?? null;
  if (!tape) return 'version-dropped';
  if (expiredLongAgo(tape, chain, config)) return 'tape-expired';
  if (version.version === undefined) {
    return keepsVersion(tape, version.root) ? 'live' : 'version-dropped';
  }
  if (keepsVersionAt(tape, version.version, version.root)) return 'live';
  if (tape.latestVersion < version.version && withinGrace) return 'pending';
  return 'version-dropped';
}

/**
 * Bytes staged on a tape at `staged.version`: an upload in progress while the tape is still at
 * that version (kept for the pending grace after the latest upload or `missing` answer). Once
 * the tape's version passes it, bytes a later version of the tape took in are held by that
 * version's own references, so the staged one goes at once. Bytes no later version took in
 * belong to a writer that lost its compare-and-swap and is re-planning on the new version (an
 * S3 commit group, a deploy racing S3 writes): they are kept for the rebase grace after they
 * were last recorded, so the rebase does not upload them again.
 */
function judgeStagedReference(
  staged: StagingOwner,
  ageMs: number,
  chain: ChainFacts,
  config: Pick<TrackGcConfig, 'expired_grace_secs' | 'pending_grace_secs' | 'rebase_grace_secs'>,
  published: boolean,
): ReferenceVerdict {
  const tape = chain.tapes.get(staged.tape) ?? null;
  if (!tape) return 'staged-superseded';
  if (expiredLongAgo(tape, chain, config)) return 'tape-expired';
  if (tape.latestVersion > staged.version) {
    return !published && ageMs < config.rebase_grace_secs * 1000 ? 'pending' : 'staged-superseded';
  }
  return ageMs < config.pending_grace_secs * 1000 ? 'pending' : 'staged-abandoned';
}

/** Whether a version of the staged tape numbered past the staging one references the blob. */
function publishedSince(staged: StagingOwner, siblings: readonly TrackReference[]): boolean {
  return siblings.some((ref) => {
    const owner = parseVersionOwner(ref.track);
    return (
      owner !== undefined &&
      owner.tape === staged.tape &&
      (owner.version === undefined || owner.version > staged.version)
    );
  });
}

/**
 * Whether the tape keeps this root as version `version`: its history table holds it and it is
 * in the kept set (the program evicts every other entry; the set is checked anyway).
 */
export function keepsVersionAt(
  tape: Pick<TapeRecord, 'version' | 'keep' | 'history' | 'aliases'>,
  version: number,
  root: Buffer,
): boolean {
  return (
    version > 0 &&
    keptSet(tape).has(version) &&
    tape.history.some((v) => v.version === version && v.root.equals(root))
  );
}

/** Whether the tape keeps this root as any of its versions. */
export function keepsVersion(
  tape: Pick<TapeRecord, 'version' | 'keep' | 'history' | 'aliases'>,
  root: Buffer,
): boolean {
  const kept = keptSet(tape);
  return tape.history.some((v) => kept.has(v.version) && v.root.equals(root));
}

function expiredLongAgo(
  tape: TapeRecord,
  chain: ChainFacts,
  config: Pick<TrackGcConfig, 'expired_grace_secs'>,
): boolean {
  const expiredAt = chain.genesisTime + tape.expiryEpoch * chain.epochDurationSecs;
  return chain.chainNow - expiredAt > config.expired_grace_secs;
}
