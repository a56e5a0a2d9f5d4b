import { Keypair, PublicKey } from '@solana/web3.js';
import { TapeRecord, TrackKind, TrackRecord, NO_VERSION } from '../../chain/account-layouts';
import { TrackGcConfig } from '../../config/storage.config';
import type { TrackReference } from '../track-store';
import { ChainFacts, judgeReference } from './track-gc-decision';

const config = Object.assign(new TrackGcConfig(), {
  expired_grace_secs: 100,
  pending_grace_secs: 60,
  orphan_segment_age_secs: 600,
});
const NOW_MS = 1_700_000_000_000;
const EPOCH = 10; // seconds
const GENESIS = 1_600_000_000;
const chainNow = NOW_MS / 1000;
const currentEpoch = Math.floor((chainNow - GENESIS) / EPOCH);

function newTestWorld() {
  const tape = Keypair.generate().publicKey;
  const track = Keypair.generate().publicKey;
  const tapeRecord = (expiryEpoch: number): TapeRecord => ({
    authority: Keypair.generate().publicKey,
    delegate: null,
    capacity: 1 << 20,
    used: 0,
    activeEpoch: 0,
    expiryEpoch,
    createdAt: 0,
    nameCount: 0,
    trackCount: 1,
    payer: Keypair.generate().publicKey,
    ...NO_VERSION,
  });
  const trackRecord = (certified = true, owner: PublicKey = tape): TrackRecord => ({
    tape: owner,
    commitment: Buffer.alloc(32, 1),
    size: 10,
    kind: TrackKind.Manifest,
    certified,
    refs: 0,
    createdAt: 0,
    contentType: '',
  });
  const ref = (over: Partial<TrackReference> = {}): TrackReference => ({
    track: track.toBase58(),
    tape: tape.toBase58(),
    role: 'track',
    size: 10,
    recordedAt: NOW_MS - 3_600_000,
    ...over,
  });
  const facts = (t: TrackRecord | null, tp: TapeRecord | null): ChainFacts => ({
    tracks: new Map([[track.toBase58(), t]]),
    tapes: new Map([[tape.toBase58(), tp]]),
    chainNow,
    genesisTime: GENESIS,
    epochDurationSecs: EPOCH,
  });
  const judge = (r: TrackReference, f: ChainFacts) => judgeReference(r, f, config, NOW_MS);
  return { tapeRecord, trackRecord, ref, facts, judge };
}

describe('judgeReference', () => {
  it('keeps a reference to a live track on an active tape', () => {
    const { tapeRecord, trackRecord, ref, facts, judge } = newTestWorld();
    expect(judge(ref(), facts(trackRecord(), tapeRecord(currentEpoch + 5)))).toBe('live');
  });

  it('drops a reference whose track account is closed', () => {
    const { tapeRecord, ref, facts, judge } = newTestWorld();
    expect(judge(ref(), facts(null, tapeRecord(currentEpoch + 5)))).toBe('track-closed');
  });

  it('keeps a closed-track reference recorded within the pending grace (re-created track, S3 write before WriteTrack)', () => {
    const { tapeRecord, ref, facts, judge } = newTestWorld();
    const fresh = ref({ recordedAt: NOW_MS - 59_000 });
    expect(judge(fresh, facts(null, tapeRecord(currentEpoch + 5)))).toBe('live');
    expect(judge(ref({ recordedAt: NOW_MS - 60_000 }), facts(null, null))).toBe('track-closed');
  });

  it('treats a track account of another tape as not this reference’s', () => {
    const { tapeRecord, trackRecord, ref, facts, judge } = newTestWorld();
    const foreign = trackRecord(true, Keypair.generate().publicKey);
    expect(judge(ref(), facts(foreign, tapeRecord(currentEpoch + 5)))).toBe('track-closed');
  });

  it('keeps an expired tape’s bytes within the grace period and drops them after it', () => {
    const { tapeRecord, trackRecord, ref, facts, judge } = newTestWorld();
    // expired 50 s ago (grace 100 s)
    const recently = (chainNow - 50 - GENESIS) / EPOCH;
    expect(judge(ref(), facts(trackRecord(), tapeRecord(recently)))).toBe('live');
    const longAgo = (chainNow - 101 - GENESIS) / EPOCH;
    expect(judge(ref(), facts(trackRecord(), tapeRecord(longAgo)))).toBe('tape-expired');
  });

  it('collects segments of a never-certified manifest after the orphan age, not before', () => {
    const { tapeRecord, trackRecord, ref, facts, judge } = newTestWorld();
    const active = tapeRecord(currentEpoch + 5);
    const young = ref({ role: 'segment', recordedAt: NOW_MS - 599_000 });
    const old = ref({ role: 'segment', recordedAt: NOW_MS - 600_000 });
    expect(judge(young, facts(trackRecord(false), active))).toBe('live');
    expect(judge(old, facts(trackRecord(false), active))).toBe('orphan-segment');
    // A certified manifest keeps its segments however old.
    expect(judge(old, facts(trackRecord(true), active))).toBe('live');
    // Its manifest track closed: the segment goes with it.
    expect(judge(old, facts(null, active))).toBe('track-closed');
  });
});
