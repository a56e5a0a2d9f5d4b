import {
  decodeTrack,
  encodeTape,
  encodeTrack,
  TapeRecord,
  trackSize,
  TrackRecord,
} from '../../../src/chain/account-layouts';
import { TapeErrorCode } from '../../../src/chain/program-errors';
import { SYSTEM_PROGRAM_ID } from '../../../src/chain/program-ids';
import { TapeInstructionData, Tag } from '../../../src/chain/tape-instruction-data';
import { AccountView } from './native-program';
import {
  closeProgramAccount,
  createProgramAccount,
  expectPayerHolds,
  rentShortfall,
} from './program-account-lifecycle';
import {
  checkedAdd,
  checkedSub,
  expectActive,
  expectRoom,
  expectTapeSigner,
  fail,
  isVacant,
  Loaded,
  MAX_U32,
  TapeInvocation,
} from './tape-invocation';
import { TapeSeeds } from './tape-seeds';

type WriteTrackData = Extract<TapeInstructionData, { tag: Tag.WriteTrack }>;

/** Accounts: payer s w, signer s, tape w, track w, config, system. */
export function writeTrack(call: TapeInvocation, data: WriteTrackData): void {
  const payer = call.wallet(0, 'payer');
  const signer = call.signer(1, 'signer');
  const tape = call.tape(2);
  const track = call.writable(3, 'track');
  const config = call.config(4);
  call.expectAddress(5, SYSTEM_PROGRAM_ID, 'system program');
  const seeds = TapeSeeds.track(tape.view.pubkey, data.commitment);
  const bump = call.expectPda(track, seeds, 'track');

  expectTapeSigner(tape.record, signer);
  expectActive(tape.record, call.epoch(config));
  if (call.owns(track)) {
    // Same tape and commitment, so the same bytes: a retried upload succeeds and costs nothing.
    call.decodeOwned(track, 'track', decodeTrack);
    return;
  }
  if (!isVacant(track)) fail(TapeErrorCode.InvalidAccountData, 'track address is in use');
  expectRoom(tape.record, data.size, 'track needs');
  const trackCount = checkedAdd(tape.record.trackCount, 1, MAX_U32, 'track count');
  const space = trackSize(data.contentType);
  expectPayerHolds(payer, rentShortfall(call, space, track.lamports), 'track rent');

  createProgramAccount(call, payer, track, space, seeds, bump);
  track.data = encodeTrack({
    tape: tape.view.pubkey,
    commitment: data.commitment,
    size: data.size,
    kind: data.kind,
    certified: false,
    refs: 0,
    createdAt: call.now,
    contentType: data.contentType,
  });
  tape.view.data = encodeTape({ ...tape.record, used: tape.record.used + data.size, trackCount });
}

/** Accounts: storage_authority s, config, track w. Idempotent. */
export function certifyTrack(call: TapeInvocation): void {
  const authority = call.signer(0, 'storage authority');
  const config = call.config(1);
  const track = call.track(2, null);
  if (!authority.pubkey.equals(config.storageAuthority)) {
    fail(TapeErrorCode.UnauthorizedSigner, 'only the storage authority certifies tracks');
  }
  if (track.record.certified) return;
  track.view.data = encodeTrack({ ...track.record, certified: true });
}

/** Accounts: receiver s w, signer s, tape w, track w. Allowed on expired tapes. */
export function releaseTrack(call: TapeInvocation): void {
  const receiver = call.wallet(0, 'receiver');
  const signer = call.signer(1, 'signer');
  const tape = call.tape(2);
  const track = call.track(3, tape.view.pubkey);

  expectTapeSigner(tape.record, signer);
  if (track.record.refs !== 0) {
    fail(TapeErrorCode.TrackInUse, `${track.record.refs} name(s) point at the track`);
  }
  const record = withoutTrack(tape.record, track.record);

  closeProgramAccount(track.view, receiver);
  tape.view.data = encodeTape(record);
}

/** The outcome of one name fewer pointing at a track, computed while checking. */
export interface TrackRelease {
  track: Loaded<TrackRecord>;
  refs: number;
  /** The tape as it must be written back: without the track's bytes once it closes. */
  tape: TapeRecord;
}

export function planTrackRelease(tape: TapeRecord, track: Loaded<TrackRecord>): TrackRelease {
  const refs = checkedSub(track.record.refs, 1, 'track refs');
  return { track, refs, tape: refs > 0 ? tape : withoutTrack(tape, track.record) };
}

/** The last reference gone, the track is closed: its rent goes to `receiver`. */
export function applyTrackRelease(release: TrackRelease, receiver: AccountView): void {
  const { track, refs } = release;
  if (refs > 0) track.view.data = encodeTrack({ ...track.record, refs });
  else closeProgramAccount(track.view, receiver);
}

function withoutTrack(tape: TapeRecord, track: TrackRecord): TapeRecord {
  return {
    ...tape,
    used: checkedSub(tape.used, track.size, 'tape used bytes'),
    trackCount: checkedSub(tape.trackCount, 1, 'tape track count'),
  };
}
