import { AccountInfo, PublicKey, SystemProgram } from '@solana/web3.js';
import { createHash } from 'node:crypto';
import { embeddedProgramVersion, ProgramVersion } from '../../chain/program-version';
import { sbfElfLength } from '../../chain/sbf-elf';
import {
  decodeLoaderState,
  PROGRAMDATA_METADATA_SIZE,
  UPGRADEABLE_LOADER_ID,
} from '../../chain/upgradeable-loader';
import { CliError } from '../cli-error';

/** A program of the BPF Upgradeable Loader as the chain has it. */
export interface DeployedProgram {
  /** Its upgrade authority; null once final. */
  authority: PublicKey | null;
  /** The slot of its last deploy or upgrade. */
  slot: bigint;
  /** Bytes its program data can hold (the ELF and room for upgrades). */
  capacity: number;
  /** Everything after the program data's header: the ELF, then zeros up to `capacity`. */
  code: Buffer;
  /** The ELF alone, cut at the length its own headers give (all of `code` when unreadable). */
  elf: Buffer;
  /** The version the ELF embeds (docs/program.md, "The version"), null when none. */
  version: ProgramVersion | null;
}

/**
 * Reads the program at `programId` from its program account and its program data account, or
 * null when the address holds no program yet (nothing, or lamports someone sent there). Anything
 * else at the address is an error: it is not ours to replace.
 */
export function readDeployedProgram(
  programId: PublicKey,
  program: AccountInfo<Buffer> | null,
  data: AccountInfo<Buffer> | null,
): DeployedProgram | null {
  const id = programId.toBase58();
  if (!program || (program.owner.equals(SystemProgram.programId) && program.data.length === 0)) {
    return null;
  }
  if (!program.owner.equals(UPGRADEABLE_LOADER_ID)) {
    throw new CliError(
      `${id} is an account of ${program.owner.toBase58()}, not a program of the BPF Upgradeable Loader`,
    );
  }
  const state = decodeLoaderState(program.data);
  if (state.kind !== 'program' || !data) {
    throw new CliError(`${id} is a loader account but not a deployed program (${state.kind})`);
  }
  const header = decodeLoaderState(data.data);
  if (header.kind !== 'programData') {
    throw new CliError(`the program data of ${id} is not readable (${header.kind})`);
  }
  const code = data.data.subarray(PROGRAMDATA_METADATA_SIZE);
  const elf = code.subarray(0, sbfElfLength(code) ?? code.length);
  return {
    authority: header.upgradeAuthority,
    slot: header.slot,
    capacity: code.length,
    code,
    elf,
    version: embeddedProgramVersion(elf),
  };
}

/** Whether the program holds exactly `elf` (the loader pads it with zeros up to its capacity). */
export function holdsElf(deployed: DeployedProgram, elf: Buffer): boolean {
  const { code } = deployed;
  return (
    code.length >= elf.length &&
    code.subarray(0, elf.length).equals(elf) &&
    code.subarray(elf.length).every((b) => b === 0)
  );
}

export function sha256Hex(bytes: Buffer): string {
  return createHash('sha256').update(bytes).digest('hex');
}
