import type { TapeRecord, TrackRecord } from '../../chain/account-layouts';
import type { TrackGcConfig } from '../../config/storage.config';
import type { TrackReference } from '../track-store';

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
  | 'orphan-segment';

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
  const track = chain.tracks.get(ref.track) ?? null;
  if (!track || track.tape.toBase58() !== ref.tape) {
    return ageMs >= config.pending_grace_secs * 1000 ? 'track-closed' : 'live';
  }
  const tape = chain.tapes.get(ref.tape) ?? null;
  if (tape) {
    const expiredAt = chain.genesisTime + tape.expiryEpoch * chain.epochDurationSecs;
    if (chain.chainNow - expiredAt > config.expired_grace_secs) return 'tape-expired';
  }
  if (ref.role === 'segment' && !track.certified) {
    return ageMs >= config.orphan_segment_age_secs * 1000 ? 'orphan-segment' : 'live';
  }
  return 'live';
}
