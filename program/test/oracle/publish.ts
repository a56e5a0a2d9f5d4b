import { encodeTape, TapeRecord } from '../../../src/chain/account-layouts';
import { TapeErrorCode } from '../../../src/chain/program-errors';
import { Tag, TapeInstructionData } from '../../../src/chain/tape-instruction-data';
import { afterPublish, evictUnkept, isAliasName } from '../../../src/chain/tape-history';
import {
  checkedAdd,
  expectActive,
  expectRoom,
  expectTapeSigner,
  fail,
  MAX_STORED_U64,
  TapeInvocation,
} from './tape-invocation';

/**
 * The compare-and-swap of every tape change: `version conflict` naming the tape's sequence;
 * answers the sequence after the change.
 */
export function expectSequence(record: TapeRecord, expected: number): number {
  if (expected !== record.sequence) {
    fail(TapeErrorCode.VersionConflict, `tape is at sequence ${record.sequence}, not ${expected}`);
  }
  return checkedAdd(record.sequence, 1, MAX_STORED_U64, 'sequence');
}

/**
 * Accounts: signer s, storage_authority s, tape w, config. The storage authority's signature
 * certifies the version as a whole and `keptBytes`; `expectedSequence` is a compare-and-swap
 * on the tape's sequence. Without an alias the version becomes current; with one, the alias
 * points at it and the current version stays.
 */
export function publish(
  call: TapeInvocation,
  data: Extract<TapeInstructionData, { tag: Tag.Publish }>,
): void {
  const signer = call.signer(0, 'signer');
  const storageAuthority = call.signer(1, 'storage authority');
  const tape = call.tape(2);
  const config = call.config(3);

  const record = tape.record;
  expectTapeSigner(record, signer);
  if (!storageAuthority.pubkey.equals(config.storageAuthority)) {
    fail(TapeErrorCode.UnauthorizedSigner, 'only the storage authority certifies versions');
  }
  expectActive(record, call.epoch(config));
  const sequence = expectSequence(record, data.expectedSequence);
  if (data.root.every((b) => b === 0)) fail(TapeErrorCode.InvalidArgument, 'root must not be zero');
  if (data.versionBytes > data.keptBytes) {
    fail(TapeErrorCode.InvalidArgument, 'version_bytes exceeds kept_bytes');
  }
  expectRoom(record, data.keptBytes, 'kept versions need');
  const version = checkedAdd(record.latestVersion, 1, MAX_STORED_U64, 'version');
  if (data.alias !== '') {
    if (!isAliasName(data.alias)) fail(TapeErrorCode.InvalidArgument, 'invalid alias name');
    const exists = record.aliases.some((a) => a.name === data.alias);
    if (!exists && record.aliases.length >= 8) {
      fail(TapeErrorCode.InvalidArgument, 'a tape has at most 8 aliases');
    }
  }

  const entry = { version, root: data.root, bytes: data.versionBytes, publishedAt: call.now };
  tape.view.data = encodeTape({
    ...record,
    ...afterPublish(record, entry, data.alias),
    latestVersion: version,
    sequence,
    keptBytes: data.keptBytes,
  });
}

/** Writes a change of the current version, aliases or keep, evicting what leaves the kept set. */
function writeChanged(
  view: { data: Buffer },
  record: TapeRecord,
  change: Partial<TapeRecord>,
  sequence: number,
): void {
  const next = { ...record, ...change, sequence };
  view.data = encodeTape({ ...next, history: evictUnkept(next) });
}

/**
 * Accounts: signer s, tape w. The checks every change of aliases or keep starts with, in the
 * program's order: the tape's signer, then the sequence compare-and-swap.
 */
function signedChange(call: TapeInvocation, expectedSequence: number) {
  const signer = call.signer(0, 'signer');
  const tape = call.tape(1);
  expectTapeSigner(tape.record, signer);
  return { tape, record: tape.record, sequence: expectSequence(tape.record, expectedSequence) };
}

/** Accounts: signer s, tape w, config. Rollback and promote: a kept version becomes current. */
export function setCurrent(
  call: TapeInvocation,
  data: Extract<TapeInstructionData, { tag: Tag.SetCurrent }>,
): void {
  const signer = call.signer(0, 'signer');
  const tape = call.tape(1);
  const config = call.config(2);
  const record = tape.record;
  expectTapeSigner(record, signer);
  expectActive(record, call.epoch(config));
  const sequence = expectSequence(record, data.expectedSequence);
  if (!record.history.some((v) => v.version === data.version)) {
    fail(TapeErrorCode.InvalidArgument, `version ${data.version} is not kept`);
  }
  writeChanged(tape.view, record, { version: data.version }, sequence);
}

/** Accounts: signer s, tape w. */
export function removeAlias(
  call: TapeInvocation,
  data: Extract<TapeInstructionData, { tag: Tag.RemoveAlias }>,
): void {
  const { tape, record, sequence } = signedChange(call, data.expectedSequence);
  if (!isAliasName(data.name)) fail(TapeErrorCode.InvalidArgument, 'invalid alias name');
  if (!record.aliases.some((a) => a.name === data.name)) {
    fail(TapeErrorCode.InvalidArgument, `no alias ${data.name}`);
  }
  const aliases = record.aliases.filter((a) => a.name !== data.name);
  writeChanged(tape.view, record, { aliases }, sequence);
}

/** Accounts: signer s, tape w. */
export function setKeep(
  call: TapeInvocation,
  data: Extract<TapeInstructionData, { tag: Tag.SetKeep }>,
): void {
  const { tape, record, sequence } = signedChange(call, data.expectedSequence);
  if (data.keep < 1 || data.keep > 16) fail(TapeErrorCode.InvalidArgument, 'keep must be 1..16');
  writeChanged(tape.view, record, { keep: data.keep }, sequence);
}
