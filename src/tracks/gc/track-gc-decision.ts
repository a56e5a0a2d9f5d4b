import type { TapeRecord, TrackRecord } from '../../chain/account-layouts';
import type { TrackGcConfig } from '../../config/storage.config';
import type { TrackReference } from '../track-store';
import { parseVersionOwner, VersionOwner } from './version-owner';

/** What the chain says about the accounts a batch of references names. */
export interface ChainFacts {
  /** Track accounts by base58 address; absent or null: closed (or not created yet). */
  tracks: ReadonlyMap<string, TrackRecord | null>;
  tapes: ReadonlyMap<string, TapeRecord | null>;
  /** Chain time, unix seconds. */
  chainNow: number;
  genesisTime: number;
  epochDurationSecs: number;
}

export type ReferenceVerdict =
  | 'live'
  /** The track account is gone (closed), and the reference is older than the pending grace. */
  | 'track-closed'
  /** The tape expired longer ago than the grace period. */
  | 'tape-expired'
  /** A segment whose manifest track was never certified, older than the orphan age. */
  | 'orphan-segment'
  /** A version owner whose root is neither the tape's current nor its previous version. */
  | 'version-dropped';

/**
 * Whether one reference still keeps its bytes. Pure: the collector reads the chain once per
 * batch and asks this for each reference. `decidedAt` (unix ms) is when the collector started
 * looking: references recorded within the pending grace before it are kept whatever the chain
 * says (an S3 write stores bytes before its WriteTrack; an RPC node may lag an upload).
 */
export function judgeReference(
  ref: TrackReference,
  chain: ChainFacts,
  config: Pick<
    TrackGcConfig,
    'expired_grace_secs' | 'pending_grace_secs' | 'orphan_segment_age_secs'
  >,
  decidedAt: number,
): ReferenceVerdict {
  const ageMs = decidedAt - ref.recordedAt;
  const version = parseVersionOwner(ref.track);
  if (version) return judgeVersionReference(version, ageMs, chain, config);
  const track = chain.tracks.get(ref.track) ?? null;
  if (!track || track.tape.toBase58() !== ref.tape) {
    return ageMs >= config.pending_grace_secs * 1000 ? 'track-closed' : 'live';
  }
  const tape = chain.tapes.get(ref.tape) ?? null;
  if (tape && expiredLongAgo(tape, chain, config)) return 'tape-expired';
  if (ref.role === 'segment' && !track.certified) {
    return ageMs >= config.orphan_segment_age_secs * 1000 ? 'orphan-segment' : 'live';
  }
  return 'live';
}

/**
 * A certified version's track (recorded by the publish service under a version owner): kept
 * while the version is one the tape keeps, its current `root` or its `prev_root`. Within the
 * pending grace it is kept whatever the chain says: the gateway records it when it certifies,
 * before the Publish is sent, let alone confirmed (and an RPC node may lag).
 */
function judgeVersionReference(
  version: VersionOwner,
  ageMs: number,
  chain: ChainFacts,
  config: Pick<TrackGcConfig, 'expired_grace_secs' | 'pending_grace_secs'>,
): ReferenceVerdict {
  if (ageMs < config.pending_grace_secs * 1000) return 'live';
  const tape = chain.tapes.get(version.tape) ?? null;
  if (!tape) return 'version-dropped';
  if (expiredLongAgo(tape, chain, config)) return 'tape-expired';
  return keepsVersion(tape, version.root) ? 'live' : 'version-dropped';
}

/** Whether the tape's pointer names this root as its current or previous version. */
export function keepsVersion(
  tape: Pick<TapeRecord, 'version' | 'root' | 'prevVersion' | 'prevRoot'>,
  root: Buffer,
): boolean {
  return (
    (tape.version > 0 && tape.root.equals(root)) ||
    (tape.prevVersion > 0 && tape.prevRoot.equals(root))
  );
}

function expiredLongAgo(
  tape: TapeRecord,
  chain: ChainFacts,
  config: Pick<TrackGcConfig, 'expired_grace_secs'>,
): boolean {
  const expiredAt = chain.genesisTime + tape.expiryEpoch * chain.epochDurationSecs;
  return chain.chainNow - expiredAt > config.expired_grace_secs;
}
