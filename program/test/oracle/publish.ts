import { encodeTape } from '../../../src/chain/account-layouts';
import { TapeErrorCode } from '../../../src/chain/program-errors';
import { Tag, TapeInstructionData } from '../../../src/chain/tape-instruction-data';
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
 * Accounts: signer s, storage_authority s, tape w, config. The storage authority's signature
 * certifies the version as a whole; `expectedVersion` is a compare-and-swap on the tape's.
 */
export function publish(
  call: TapeInvocation,
  data: Extract<TapeInstructionData, { tag: Tag.Publish }>,
): void {
  const signer = call.signer(0, 'signer');
  const storageAuthority = call.signer(1, 'storage authority');
  const tape = call.tape(2);
  const config = call.config(3);

  expectTapeSigner(tape.record, signer);
  if (!storageAuthority.pubkey.equals(config.storageAuthority)) {
    fail(TapeErrorCode.UnauthorizedSigner, 'only the storage authority certifies versions');
  }
  if (data.root.every((b) => b === 0)) fail(TapeErrorCode.InvalidArgument, 'root must not be zero');
  if (data.addedBytes > data.versionBytes) {
    fail(TapeErrorCode.InvalidArgument, 'added_bytes exceeds version_bytes');
  }
  const record = tape.record;
  expectActive(record, call.epoch(config));
  if (data.expectedVersion !== record.version) {
    fail(
      TapeErrorCode.VersionConflict,
      `tape is at version ${record.version}, not ${data.expectedVersion}`,
    );
  }
  const version = checkedAdd(record.version, 1, MAX_STORED_U64, 'version');
  // Both terms are at most 2^53 - 1: compared exactly as bigints.
  const kept = BigInt(record.version === 0 ? 0 : record.versionBytes) + BigInt(data.addedBytes);
  if (BigInt(data.versionBytes) > kept) {
    fail(
      TapeErrorCode.InvalidArgument,
      "version_bytes exceeds the previous version's bytes plus added_bytes",
    );
  }
  expectRoom(record, kept, 'kept versions need');

  tape.view.data = encodeTape({
    ...record,
    prevVersion: record.version,
    prevRoot: record.root,
    prevVersionBytes: record.versionBytes,
    version,
    root: data.root,
    versionBytes: data.versionBytes,
    keptBytes: Number(kept),
    publishedAt: call.now,
  });
}
