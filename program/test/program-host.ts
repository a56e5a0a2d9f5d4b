import { PublicKey, TransactionInstruction } from '@solana/web3.js';
import {
  ASSOCIATED_TOKEN_PROGRAM_ID,
  DEFAULT_TAPE_PROGRAM_ID,
  SYSTEM_PROGRAM_ID,
  TOKEN_PROGRAM_ID,
} from '../../src/chain/program-ids';
import { InstructionErrorKind } from './oracle/native-program';

export type { InstructionErrorKind };

/** An account as a host stores it. An absent account and one with 0 lamports are the same. */
export interface HostAccount {
  lamports: number;
  owner: PublicKey;
  data: Buffer;
  executable: boolean;
}

export interface HostOutcome {
  error: InstructionErrorKind | null;
  /** The tape program's own log messages, without "Program log: ", none of its callees'. */
  logs: string[];
  computeUnits?: number;
  /** Native runtime only: on failure, whether anything changed (or a CPI ran) before it. */
  effectsBeforeFailure?: boolean;
}

/**
 * A runtime the tape program runs on, driven by `TapeWorld` and the differential test: the
 * TypeScript program on the test ledger (the oracle) or the C build on the real SVM.
 */
export interface ProgramHost {
  readonly name: 'native' | 'svm';
  readonly programId: PublicKey;
  /** Creates or overwrites an account; 0 lamports removes it. */
  setAccount(address: PublicKey, account: Partial<HostAccount>): void;
  getAccount(address: PublicKey): HostAccount | undefined;
  readonly unixTimestamp: number;
  setUnixTimestamp(unixTimestamp: number): void;
  /** Runs one tape-program instruction in a transaction of its own. */
  execute(ix: TransactionInstruction): HostOutcome;
  /**
   * Every address this host has been given or has seen in an instruction, except program
   * accounts and the host's own fee payer; some may no longer exist.
   */
  knownAccounts(): PublicKey[];
  /** Forgets every account and sets the clock back, as if the host were new. */
  reset(): void;
}

/** The clock of a new or reset host. */
export const START_UNIX_TIMESTAMP = 1_700_000_000;

/** Programs on both hosts: instruction keys, but never accounts a host reports as known. */
export const PROGRAM_ADDRESSES = new Set(
  [DEFAULT_TAPE_PROGRAM_ID, SYSTEM_PROGRAM_ID, TOKEN_PROGRAM_ID, ASSOCIATED_TOKEN_PROGRAM_ID].map(
    (id) => id.toBase58(),
  ),
);
