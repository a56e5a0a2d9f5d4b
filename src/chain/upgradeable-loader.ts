import {
  AccountMeta,
  PublicKey,
  SystemProgram,
  SYSVAR_CLOCK_PUBKEY,
  SYSVAR_RENT_PUBKEY,
  TransactionInstruction,
} from '@solana/web3.js';
import { ByteReader, ByteWriter, LayoutError } from './byte-codec';
import { ComputeUnitEstimator } from './compute-units';

/**
 * The BPF Upgradeable Loader (loader v3), the loader `solana program deploy` uses: instruction
 * builders and account states, written from its public interface (agave's
 * `loader-v3-interface`). Instructions and states are bincode: a u32 little-endian variant
 * index, then the fields; `usize` is a u64, `Vec<u8>` a u64 length then the bytes,
 * `Option<Pubkey>` a u8 flag then the key.
 */
export const UPGRADEABLE_LOADER_ID = new PublicKey('BPFLoaderUpgradeab1e11111111111111111111111');

/** Buffer state header: variant (4) + Option<authority> (1 + 32); the ELF starts after it. */
export const BUFFER_METADATA_SIZE = 37;
/** Program account: variant (4) + the program data address (32). */
export const PROGRAM_ACCOUNT_SIZE = 36;
/** ProgramData header: variant (4) + deploy slot (8) + Option<upgrade authority> (1 + 32). */
export const PROGRAMDATA_METADATA_SIZE = 45;

export enum LoaderInstruction {
  InitializeBuffer = 0,
  Write = 1,
  DeployWithMaxDataLen = 2,
  Upgrade = 3,
  SetAuthority = 4,
  Close = 5,
}

/**
 * Compute units requested per loader instruction. Agave charges a builtin 2,370 units for each
 * (measured on litesvm: Write 2,370, DeployWithMaxDataLen 2,520 plus its System call); the
 * deploy and upgrade get more room because they create or resize the program data through
 * System. Too low fails the transaction; too high only raises a priority fee a little.
 */
export const LOADER_COMPUTE_UNITS: Record<LoaderInstruction, number> = {
  [LoaderInstruction.InitializeBuffer]: 5_000,
  [LoaderInstruction.Write]: 5_000,
  [LoaderInstruction.DeployWithMaxDataLen]: 10_000,
  [LoaderInstruction.Upgrade]: 10_000,
  [LoaderInstruction.SetAuthority]: 5_000,
  [LoaderInstruction.Close]: 5_000,
};

/** The packer's estimates, plus the loader's instructions by variant. */
export class LoaderComputeUnits extends ComputeUnitEstimator {
  override estimate(ix: TransactionInstruction): number {
    if (!ix.programId.equals(UPGRADEABLE_LOADER_ID)) return super.estimate(ix);
    const index = ix.data.length >= 4 ? ix.data.readUInt32LE(0) : -1;
    return Object.hasOwn(LOADER_COMPUTE_UNITS, index)
      ? LOADER_COMPUTE_UNITS[index as LoaderInstruction]
      : super.estimate(ix);
  }
}

enum StateVariant {
  Uninitialized = 0,
  Buffer = 1,
  Program = 2,
  ProgramData = 3,
}

export type LoaderState =
  | { kind: 'uninitialized' }
  | { kind: 'buffer'; authority: PublicKey | null }
  | { kind: 'program'; programData: PublicKey }
  | { kind: 'programData'; slot: bigint; upgradeAuthority: PublicKey | null };

/** The program data account of a program: the PDA `[program id]` under the loader. */
export function programDataAddress(programId: PublicKey): PublicKey {
  return PublicKey.findProgramAddressSync([programId.toBuffer()], UPGRADEABLE_LOADER_ID)[0];
}

/** Decodes the state header of an account owned by the loader (the bytes after it are the ELF). */
export function decodeLoaderState(data: Buffer): LoaderState {
  const r = new ByteReader(data);
  const variant = r.u32() as StateVariant;
  switch (variant) {
    case StateVariant.Uninitialized:
      return { kind: 'uninitialized' };
    case StateVariant.Buffer:
      return { kind: 'buffer', authority: optionalKey(r) };
    case StateVariant.Program:
      return { kind: 'program', programData: r.pubkey() };
    case StateVariant.ProgramData:
      return { kind: 'programData', slot: r.u64(), upgradeAuthority: optionalKey(r) };
    default:
      throw new LayoutError(`unknown upgradeable loader state ${String(variant)}`);
  }
}

function optionalKey(r: ByteReader): PublicKey | null {
  const flag = r.u8();
  if (flag === 0) return null;
  if (flag !== 1) throw new LayoutError(`bad Option flag ${flag}`);
  return r.pubkey();
}

const writable = (pubkey: PublicKey, isSigner = false): AccountMeta => ({
  pubkey,
  isSigner,
  isWritable: true,
});
const readonly = (pubkey: PublicKey, isSigner = false): AccountMeta => ({
  pubkey,
  isSigner,
  isWritable: false,
});

function loaderIx(keys: AccountMeta[], data: Buffer): TransactionInstruction {
  return new TransactionInstruction({ programId: UPGRADEABLE_LOADER_ID, keys, data });
}

function variant(index: LoaderInstruction): ByteWriter {
  return new ByteWriter().u32(index);
}

/**
 * A buffer account at `createWithSeed(base, seed, loader)`: created by System
 * CreateAccountWithSeed (signed by `base`, which pays) at the size the ELF needs, then
 * InitializeBuffer with its authority. Both must be in one transaction, or anyone could
 * initialize the account first. A seeded address needs no keypair, so an interrupted deploy
 * finds its buffer again.
 */
export function createBufferInstructions(a: {
  payer: PublicKey;
  buffer: PublicKey;
  seed: string;
  authority: PublicKey;
  elfLength: number;
  lamports: number;
}): TransactionInstruction[] {
  return [
    SystemProgram.createAccountWithSeed({
      fromPubkey: a.payer,
      newAccountPubkey: a.buffer,
      basePubkey: a.payer,
      seed: a.seed,
      lamports: a.lamports,
      space: BUFFER_METADATA_SIZE + a.elfLength,
      programId: UPGRADEABLE_LOADER_ID,
    }),
    initializeBuffer({ buffer: a.buffer, authority: a.authority }),
  ];
}

/** 0 InitializeBuffer: `[w] buffer`, `[] authority`. */
export function initializeBuffer(a: {
  buffer: PublicKey;
  authority: PublicKey;
}): TransactionInstruction {
  return loaderIx(
    [writable(a.buffer), readonly(a.authority)],
    variant(LoaderInstruction.InitializeBuffer).done(),
  );
}

/** 1 Write { offset: u32, bytes: Vec<u8> }: `[w] buffer`, `[s] authority`. */
export function writeBuffer(a: {
  buffer: PublicKey;
  authority: PublicKey;
  offset: number;
  bytes: Uint8Array;
}): TransactionInstruction {
  const data = variant(LoaderInstruction.Write)
    .u32(a.offset)
    .u64(a.bytes.length)
    .bytes(a.bytes)
    .done();
  return loaderIx([writable(a.buffer), readonly(a.authority, true)], data);
}

/** Instruction data bytes of a Write carrying no bytes: variant, offset, length. */
export const WRITE_HEADER_SIZE = 16;

/**
 * 2 DeployWithMaxDataLen { max_data_len: u64 }: `[ws] payer`, `[w] program data`,
 * `[w] program`, `[w] buffer`, `[] rent`, `[] clock`, `[] system program`, `[s] authority`.
 * The program account must exist (36 bytes, owned by the loader, rent-exempt) and be created
 * in the same transaction; the buffer's authority must be `authority`. The buffer is closed
 * (its lamports go to the payer).
 */
export function deployWithMaxDataLen(a: {
  payer: PublicKey;
  programId: PublicKey;
  buffer: PublicKey;
  authority: PublicKey;
  maxDataLen: number;
}): TransactionInstruction {
  return loaderIx(
    [
      writable(a.payer, true),
      writable(programDataAddress(a.programId)),
      writable(a.programId),
      writable(a.buffer),
      readonly(SYSVAR_RENT_PUBKEY),
      readonly(SYSVAR_CLOCK_PUBKEY),
      readonly(SystemProgram.programId),
      readonly(a.authority, true),
    ],
    variant(LoaderInstruction.DeployWithMaxDataLen).u64(a.maxDataLen).done(),
  );
}

/**
 * 3 Upgrade: `[w] program data`, `[w] program`, `[w] buffer`, `[w] spill`, `[] rent`,
 * `[] clock`, `[s] authority`. The buffer's lamports beyond the program data's rent go to
 * `spill`; the buffer is closed.
 */
export function upgradeProgram(a: {
  programId: PublicKey;
  buffer: PublicKey;
  authority: PublicKey;
  spill: PublicKey;
}): TransactionInstruction {
  return loaderIx(
    [
      writable(programDataAddress(a.programId)),
      writable(a.programId),
      writable(a.buffer),
      writable(a.spill),
      readonly(SYSVAR_RENT_PUBKEY),
      readonly(SYSVAR_CLOCK_PUBKEY),
      readonly(a.authority, true),
    ],
    variant(LoaderInstruction.Upgrade).done(),
  );
}

/**
 * 4 SetAuthority: `[w] buffer or program data`, `[s] current authority`, `[] new authority`
 * (omitted: none, which makes a program final and cannot be undone).
 */
export function setAuthority(a: {
  account: PublicKey;
  currentAuthority: PublicKey;
  newAuthority: PublicKey | null;
}): TransactionInstruction {
  const keys = [writable(a.account), readonly(a.currentAuthority, true)];
  if (a.newAuthority) keys.push(readonly(a.newAuthority));
  return loaderIx(keys, variant(LoaderInstruction.SetAuthority).done());
}

/**
 * 5 Close: `[w] account`, `[w] recipient`, `[s] authority`, and `[w] program` when closing a
 * program's data. Gives every lamport of a buffer (or program) back.
 */
export function closeAccount(a: {
  account: PublicKey;
  recipient: PublicKey;
  authority: PublicKey;
  program?: PublicKey;
}): TransactionInstruction {
  const keys = [writable(a.account), writable(a.recipient), readonly(a.authority, true)];
  if (a.program) keys.push(writable(a.program));
  return loaderIx(keys, variant(LoaderInstruction.Close).done());
}
