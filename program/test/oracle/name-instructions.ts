import {
  encodeName,
  encodeTape,
  encodeTrack,
  MAX_NAME_BYTES,
  MAX_NAME_METADATA_BYTES,
  nameSize,
} from '../../../src/chain/account-layouts';
import { HIDDEN_NAME_RULE, isHiddenName } from '../../../src/chain/hidden-names';
import { TapeErrorCode } from '../../../src/chain/program-errors';
import { SYSTEM_PROGRAM_ID } from '../../../src/chain/program-ids';
import { TapeInstructionData, Tag } from '../../../src/chain/tape-instruction-data';
import {
  closeProgramAccount,
  createProgramAccount,
  expectPayerHolds,
  rentShortfall,
  rewriteResized,
} from './program-account-lifecycle';
import {
  checkedAdd,
  checkedSub,
  expectActive,
  expectTapeSigner,
  fail,
  isVacant,
  MAX_U32,
  TapeInvocation,
} from './tape-invocation';
import { TapeSeeds } from './tape-seeds';
import { applyTrackRelease, planTrackRelease, TrackRelease } from './track-instructions';

type SetNameData = Extract<TapeInstructionData, { tag: Tag.SetName }>;

const PREVIOUS_TRACK = 7;

/** Accounts: payer s w, signer s, tape w, name w, track w, config, system, [previous track w]. */
export function setName(call: TapeInvocation, data: SetNameData): void {
  const payer = call.wallet(0, 'payer');
  const signer = call.signer(1, 'signer');
  const tape = call.tape(2);
  const name = call.writable(3, 'name');
  const track = call.track(4, tape.view.pubkey);
  const config = call.config(5);
  call.expectAddress(6, SYSTEM_PROGRAM_ID, 'system program');
  const seeds = TapeSeeds.name(tape.view.pubkey, data.name);
  const bump = call.expectPda(name, seeds, 'name');

  expectTapeSigner(tape.record, signer);
  const nameBytes = Buffer.byteLength(data.name, 'utf8');
  if (nameBytes < 1 || nameBytes > MAX_NAME_BYTES) {
    fail(
      TapeErrorCode.InvalidArgument,
      `name must be 1..${MAX_NAME_BYTES} bytes, got ${nameBytes}`,
    );
  }
  if (isHiddenName(data.name)) fail(TapeErrorCode.InvalidName, HIDDEN_NAME_RULE);
  const metadataBytes = data.metadata?.length ?? 0;
  if (metadataBytes > MAX_NAME_METADATA_BYTES) {
    fail(
      TapeErrorCode.InvalidArgument,
      `metadata must be at most ${MAX_NAME_METADATA_BYTES} bytes, got ${metadataBytes}`,
    );
  }
  expectActive(tape.record, call.epoch(config));
  if (!track.record.certified) fail(TapeErrorCode.TrackNotCertified, 'track is not certified');

  let tapeAfter = tape.record;
  let release: TrackRelease | null = null;
  const exists = call.owns(name);
  if (exists) {
    const current = call.name(3, tape.view.pubkey).record;
    if (current.name !== data.name)
      fail(TapeErrorCode.InvalidAccountData, 'name account holds another name');
    if (!current.track.equals(track.view.pubkey)) {
      const previous = call.ctx.accounts[PREVIOUS_TRACK];
      if (!previous || !previous.pubkey.equals(current.track)) {
        fail(
          TapeErrorCode.AccountMismatch,
          'the track the name points at must be passed as previous track',
        );
      }
      release = planTrackRelease(
        tapeAfter,
        call.track(PREVIOUS_TRACK, tape.view.pubkey, 'previous track'),
      );
      tapeAfter = release.tape;
    }
  } else {
    if (!isVacant(name)) fail(TapeErrorCode.InvalidAccountData, 'name address is in use');
    tapeAfter = {
      ...tapeAfter,
      nameCount: checkedAdd(tapeAfter.nameCount, 1, MAX_U32, 'name count'),
    };
  }
  const repoint = !exists || release !== null;
  const refs = repoint
    ? checkedAdd(track.record.refs, 1, MAX_U32, 'track refs')
    : track.record.refs;
  const space = nameSize(data.name, data.contentType, data.metadata);
  // Rent a closed previous track returns is not counted: the payer must hold the rent up front.
  expectPayerHolds(payer, rentShortfall(call, space, name.lamports), 'name rent');

  // Cross-program calls first, so the runtime sees no half-made direct change across a call.
  const record = encodeName({
    tape: tape.view.pubkey,
    track: track.view.pubkey,
    commitment: track.record.commitment,
    size: track.record.size,
    kind: track.record.kind,
    updatedAt: call.now,
    contentType: data.contentType,
    name: data.name,
    metadata: data.metadata,
  });
  if (exists) {
    rewriteResized(call, payer, name, record);
  } else {
    createProgramAccount(call, payer, name, space, seeds, bump);
    name.data = record;
  }
  if (repoint) track.view.data = encodeTrack({ ...track.record, refs });
  if (release) applyTrackRelease(release, payer);
  tape.view.data = encodeTape(tapeAfter);
}

/** Accounts: receiver s w, signer s, tape w, name w, track w. Allowed on expired tapes. */
export function removeName(call: TapeInvocation): void {
  const receiver = call.wallet(0, 'receiver');
  const signer = call.signer(1, 'signer');
  const tape = call.tape(2);
  const name = call.name(3, tape.view.pubkey);
  if (!call.at(4).pubkey.equals(name.record.track)) {
    fail(TapeErrorCode.AccountMismatch, 'track is not the one the name points at');
  }
  const track = call.track(4, tape.view.pubkey);

  expectTapeSigner(tape.record, signer);
  const release = planTrackRelease(
    { ...tape.record, nameCount: checkedSub(tape.record.nameCount, 1, 'tape name count') },
    track,
  );

  closeProgramAccount(name.view, receiver);
  applyTrackRelease(release, receiver);
  tape.view.data = encodeTape(release.tape);
}
