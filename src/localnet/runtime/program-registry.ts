import { PublicKey } from '@solana/web3.js';
import { NativeProgram } from './native-program';

/** Owners of program accounts: built-ins load natively, the others as if BPF programs. */
export const NATIVE_LOADER_ID = new PublicKey('NativeLoader1111111111111111111111111111111');
export const BPF_LOADER_ID = new PublicKey('BPFLoader2111111111111111111111111111111111');

/**
 * Keys Solana never lets a transaction write (built-in programs, loaders, sysvars): a message that
 * marks them writable has them demoted to read-only, as the real runtime does.
 */
const RESERVED_KEYS = [
  '11111111111111111111111111111111',
  'ComputeBudget111111111111111111111111111111',
  'NativeLoader1111111111111111111111111111111',
  'BPFLoader1111111111111111111111111111111111',
  'BPFLoader2111111111111111111111111111111111',
  'BPFLoaderUpgradeab1e11111111111111111111111',
  'Config1111111111111111111111111111111111111',
  'Stake11111111111111111111111111111111111111',
  'Vote111111111111111111111111111111111111111',
  'Ed25519SigVerify111111111111111111111111111',
  'KeccakSecp256k11111111111111111111111111111',
  'Sysvar1111111111111111111111111111111111111',
  'SysvarC1ock11111111111111111111111111111111',
  'SysvarEpochSchedu1e111111111111111111111111',
  'SysvarFees111111111111111111111111111111111',
  'Sysvar1nstructions1111111111111111111111111',
  'SysvarRecentB1ockHashes11111111111111111111',
  'SysvarRent111111111111111111111111111111111',
  'SysvarRewards111111111111111111111111111111',
  'SysvarS1otHashes111111111111111111111111111',
  'SysvarS1otHistory11111111111111111111111111',
  'SysvarStakeHistory1111111111111111111111111',
].map((k) => new PublicKey(k).toBuffer().toString('base64'));

export interface RegisteredProgram {
  program: NativeProgram;
  loader: PublicKey;
}

/** The programs this network runs, by id. */
export class ProgramRegistry {
  private readonly programs = new Map<string, RegisteredProgram>();
  private readonly reserved = new Set(RESERVED_KEYS);

  register(program: NativeProgram, loader: PublicKey): this {
    this.programs.set(program.programId.toBuffer().toString('base64'), { program, loader });
    return this;
  }

  get(programId: PublicKey | Buffer): NativeProgram | undefined {
    return this.programs.get(keyOf(programId))?.program;
  }

  isReserved(key: Buffer): boolean {
    return this.reserved.has(key.toString('base64'));
  }

  all(): RegisteredProgram[] {
    return [...this.programs.values()];
  }
}

function keyOf(id: PublicKey | Buffer): string {
  return (Buffer.isBuffer(id) ? id : id.toBuffer()).toString('base64');
}
