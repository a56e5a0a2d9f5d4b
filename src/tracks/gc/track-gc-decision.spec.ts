import { Keypair } from '@solana/web3.js';
import { TapeRecord } from '../../chain/account-layouts';
import { keeping, testTapeRecord } from '../../chain/tape-record.spec-support';
import { TrackGcConfig } from '../../config/storage.config';
import type { TrackReference } from '../track-store';
import { ChainFacts, judgeReference } from './track-gc-decision';
import { stagingOwner, versionOwner } from './version-owner';

const config = Object.assign(new TrackGcConfig(), {
  expired_grace_secs: 100,
  pending_grace_secs: 60,
});
const NOW_MS = 1_700_000_000_000;
const EPOCH = 10; // seconds
const GENESIS = 1_600_000_000;
const chainNow = NOW_MS / 1000;
const currentEpoch = Math.floor((chainNow - GENESIS) / EPOCH);

describe('judgeReference: an unknown owner (a per-file Track account before program 1.2.0)', () => {
  const legacy = (ageMs: number): TrackReference => ({
    track: Keypair.generate().publicKey.toBase58(),
    tape: Keypair.generate().publicKey.toBase58(),
    role: 'track',
    size: 10,
    recordedAt: NOW_MS - ageMs,
  });
  const noTapes: ChainFacts = {
    tapes: new Map(),
    chainNow,
    genesisTime: GENESIS,
    epochDurationSecs: EPOCH,
  };

  it('keeps it within the pending grace and drops it after, without reading an account', () => {
    expect(judgeReference(legacy(59_000), noTapes, config, NOW_MS)).toBe('live');
    expect(judgeReference(legacy(60_000), noTapes, config, NOW_MS)).toBe('unknown-owner');
  });
});

describe('judgeReference: a version owner (a certified version’s tracks)', () => {
  const V1 = Buffer.alloc(32, 0xa1);
  const V2 = Buffer.alloc(32, 0xa2);
  const V3 = Buffer.alloc(32, 0xa3);
  const V4 = Buffer.alloc(32, 0xa4);
  const NUMBER = new Map<Buffer, number>([V1, V2, V3, V4].map((v, i) => [v, i + 1]));

  function newVersionWorld(
    gc: Pick<
      TrackGcConfig,
      'expired_grace_secs' | 'pending_grace_secs' | 'rebase_grace_secs'
    > = config,
  ) {
    const tape = Keypair.generate().publicKey;
    const tapeRecord = (pointer: Partial<TapeRecord>, expiryEpoch = currentEpoch + 5): TapeRecord =>
      testTapeRecord({ activeEpoch: 0, expiryEpoch, ...pointer });
    const ref = (root: Buffer, ageMs = 3_600_000, version = NUMBER.get(root)!): TrackReference => ({
      track: versionOwner(tape, version, root),
      tape: tape.toBase58(),
      role: 'track',
      size: 10,
      recordedAt: NOW_MS - ageMs,
    });
    const staged = (version: number, ageMs = 1000): TrackReference => ({
      ...ref(V1, ageMs),
      track: stagingOwner(tape, version),
      role: 'segment',
    });
    // No track account is read for a version or staging owner: only its tape.
    const facts = (tp: TapeRecord | null): ChainFacts => ({
      tapes: new Map([[tape.toBase58(), tp]]),
      chainNow,
      genesisTime: GENESIS,
      epochDurationSecs: EPOCH,
    });
    const judge = (r: TrackReference, f: ChainFacts, siblings: TrackReference[] = []) =>
      judgeReference(r, f, gc, NOW_MS, siblings);
    return { tape, tapeRecord, ref, staged, facts, judge };
  }

  /** Version 3 published over version 2 over version 1, keeping the 2 newest. */
  const atV3 = {
    ...keeping(3, [
      [2, V2],
      [3, V3],
    ]),
    keep: 2,
  };

  it('keeps the versions in the kept set: current, aliased, the newest `keep`', () => {
    const { tapeRecord, ref, facts, judge } = newVersionWorld();
    // Rolled back to 1, which an alias also names; 2 and 3 are the newest two.
    const rolledBack = tapeRecord({
      ...keeping(1, [
        [1, V1],
        [2, V2],
        [3, V3],
      ]),
      keep: 2,
      aliases: [{ name: 'old', version: 1 }],
    });
    expect([V1, V2, V3].map((root) => judge(ref(root), facts(rolledBack)))).toEqual([
      'live',
      'live',
      'live',
    ]);
    // Keep 1 and no alias: only current 1 and the newest, 3.
    const narrowed: TapeRecord = { ...rolledBack, keep: 1, aliases: [] };
    expect([V1, V2, V3].map((root) => judge(ref(root), facts(narrowed)))).toEqual([
      'live',
      'version-dropped',
      'live',
    ]);
    // A version published under an alias (latest 4, current still 3) is not pending but kept.
    const preview = tapeRecord({
      ...keeping(3, [
        [3, V3],
        [4, V4],
      ]),
      aliases: [{ name: 'pr-1', version: 4 }],
    });
    expect(judge(ref(V4, 3_600_000, 4), facts(preview))).toBe('live');
  });

  it('keeps an aliased version past keep until its alias goes (RemoveAlias: gone at once)', () => {
    const { tapeRecord, ref, facts, judge } = newVersionWorld();
    const aliased = tapeRecord({
      ...keeping(4, [
        [1, V1],
        [3, V3],
        [4, V4],
      ]),
      keep: 2,
      aliases: [{ name: 'pr-1', version: 1 }],
    });
    expect(judge(ref(V1), facts(aliased))).toBe('live');
    expect(judge(ref(V2), facts(aliased))).toBe('version-dropped');
    const removed = tapeRecord({
      ...keeping(4, [
        [3, V3],
        [4, V4],
      ]),
      keep: 2,
    });
    expect(judge(ref(V1, 0), facts(removed))).toBe('version-dropped');
  });

  it('judges staged bytes by the latest version, not the current one (a rollback lowers it)', () => {
    const { tapeRecord, staged, facts, judge } = newVersionWorld();
    const rolledBack = facts(tapeRecord({ ...atV3, version: 2, sequence: 4 }));
    expect(judge(staged(3, 59_000), rolledBack)).toBe('pending');
    expect(judge(staged(3, 60_000), rolledBack)).toBe('staged-abandoned');
  });

  it('keeps the current and the previous version, drops the one before', () => {
    const { tapeRecord, ref, facts, judge } = newVersionWorld();
    const tape = facts(tapeRecord(atV3));
    expect([V3, V2, V1].map((root) => judge(ref(root), tape))).toEqual([
      'live',
      'live',
      'version-dropped',
    ]);
  });

  it('drops a dropped version at once, however recently it was recorded (the pointer decides)', () => {
    const { tapeRecord, ref, facts, judge } = newVersionWorld();
    expect(judge(ref(V1, 0), facts(tapeRecord(atV3)))).toBe('version-dropped');
    // The same root at another number is another owner: kept only where the pointer says.
    expect(judge(ref(V3, 0, 2), facts(tapeRecord(atV3)))).toBe('version-dropped');
    // A root that lost the compare-and-swap for number 3 to V3.
    expect(judge(ref(V4, 0, 3), facts(tapeRecord(atV3)))).toBe('version-dropped');
  });

  it('keeps a version still to come (certified, Publish not landed) for the pending grace only', () => {
    const { tapeRecord, ref, facts, judge } = newVersionWorld();
    // Certified over version 3 as version 4; the node still shows version 3 (or lags further).
    expect(judge(ref(V4, 59_000), facts(tapeRecord(atV3)))).toBe('pending');
    expect(judge(ref(V4, 59_000), facts(tapeRecord({})))).toBe('pending');
    // Never landed: the grace is over.
    expect(judge(ref(V4, 60_000), facts(tapeRecord(atV3)))).toBe('version-dropped');
    expect(judge(ref(V1), facts(tapeRecord({})))).toBe('version-dropped');
  });

  it('drops the versions of a closed tape, and of one expired past the grace', () => {
    const { tapeRecord, ref, facts, judge } = newVersionWorld();
    expect(judge(ref(V3), facts(null))).toBe('version-dropped');
    expect(judge(ref(V4, 0), facts(null))).toBe('version-dropped');
    const recently = (chainNow - 50 - GENESIS) / EPOCH;
    expect(judge(ref(V3), facts(tapeRecord(atV3, recently)))).toBe('live');
    const longAgo = (chainNow - 101 - GENESIS) / EPOCH;
    expect(judge(ref(V3), facts(tapeRecord(atV3, longAgo)))).toBe('tape-expired');
  });

  it('is judged against the tape the owner names, not a same root on another tape', () => {
    const { tapeRecord, ref, facts, judge } = newVersionWorld();
    const other = Keypair.generate().publicKey.toBase58();
    const foreign = { ...ref(V3), track: versionOwner(other, 3, V3) };
    // The other tape is not among the facts (absent = closed): its version is not kept here.
    expect(judge(foreign, facts(tapeRecord(atV3)))).toBe('version-dropped');
  });

  it('judges owners recorded without a number by the grace, then the pointer', () => {
    const { tape, tapeRecord, facts, judge } = newVersionWorld();
    const old = (root: Buffer, ageMs: number): TrackReference => ({
      track: `version:${tape.toBase58()}:${root.toString('hex')}`,
      tape: tape.toBase58(),
      role: 'track',
      size: 10,
      recordedAt: NOW_MS - ageMs,
    });
    expect(judge(old(V1, 59_000), facts(tapeRecord(atV3)))).toBe('live');
    expect(judge(old(V1, 60_000), facts(tapeRecord(atV3)))).toBe('version-dropped');
    expect(judge(old(V2, 60_000), facts(tapeRecord(atV3)))).toBe('live');
  });

  it('keeps staged bytes while the tape is at their version, within the grace', () => {
    const { tapeRecord, staged, facts, judge } = newVersionWorld();
    const tape = facts(tapeRecord(atV3));
    expect(judge(staged(3, 59_000), tape)).toBe('pending');
    expect(judge(staged(3, 60_000), tape)).toBe('staged-abandoned');
    // A node that lags (the tape still at 2 there) keeps them too.
    expect(judge(staged(4, 1000), tape)).toBe('pending');
  });

  it('drops staged bytes at once when a later version of the tape took them in, or the tape closed', () => {
    const { tapeRecord, ref, staged, facts, judge } = newVersionWorld();
    // Staged on 1, published in version 2 (dropped since, or still kept: either way).
    expect(judge(staged(1, 0), facts(tapeRecord(atV3)), [ref(V2, 0)])).toBe('staged-superseded');
    expect(judge(staged(3, 0), facts(null))).toBe('staged-superseded');
  });

  it('keeps staged bytes no later version took in for the rebase grace (a writer re-planning)', () => {
    const { tapeRecord, ref, staged, facts, judge } = newVersionWorld();
    const tape = facts(tapeRecord(atV3));
    expect(judge(staged(2, 119_000), tape)).toBe('pending');
    expect(judge(staged(2, 120_000), tape)).toBe('staged-superseded');
    // A version at or before the staging one does not count as taking them in.
    expect(judge(staged(2, 0), tape, [ref(V2, 0)])).toBe('pending');
  });

  it('with the default settings, a dropped version goes whatever its age; one never published after 1 h', () => {
    const defaults = new TrackGcConfig();
    expect(defaults.pending_grace_secs).toBe(3600);
    const { tapeRecord, ref, facts, judge } = newVersionWorld(defaults);
    const tape = facts(tapeRecord(atV3));
    expect(judge(ref(V1, 0), tape)).toBe('version-dropped');
    expect(judge(ref(V4, 3_599_000), tape)).toBe('pending');
    expect(judge(ref(V4, 3_600_000), tape)).toBe('version-dropped');
    expect(judge(ref(V2, 30 * 24 * 3_600_000), tape)).toBe('live');
  });
});
