import { PublicKey } from '@solana/web3.js';

/**
 * The contract between the test runtime (test-ledger.ts) and the programs it runs in
 * TypeScript (the tape program oracle and the test natives). It mirrors Solana's model so a
 * native program here behaves as its on-chain build would:
 *
 * - A program sees the instruction's accounts in order, as mutable views. It may change
 *   `data`, `owner` and debit `lamports` only of writable accounts it owns (or, for `owner`
 *   and `data`, a system-owned account with zero data that signs or is one of its PDAs being
 *   created through `invokeSigned` of the System program). Anyone may credit lamports to a
 *   writable account. The runtime checks these rules after every instruction and fails the
 *   transaction (`InstructionError`) when they are broken; lamports must balance.
 * - Cross-program calls go through `invoke` / `invokeSigned` (PDA signer seeds), exactly like
 *   Solana CPI: the callee sees only the accounts passed, with the caller's signer privileges
 *   (plus the PDAs derived from `seeds` under the caller's program id).
 * - Errors: throw `InstructionFailure` (a Solana `InstructionError` variant, e.g. `{ Custom: 6000 }`
 *   or `'InvalidAccountData'`) with a log line; the whole transaction is rolled back.
 */
export interface AccountView {
  readonly pubkey: PublicKey;
  readonly isSigner: boolean;
  readonly isWritable: boolean;
  lamports: number;
  owner: PublicKey;
  data: Buffer;
  readonly executable: boolean;
}

export interface Clock {
  slot: number;
  unixTimestamp: number;
}

export interface InvokeContext {
  readonly programId: PublicKey;
  readonly accounts: AccountView[];
  readonly data: Buffer;
  readonly clock: Clock;
  /** Rent-exempt minimum balance for an account of `dataLength` bytes, in lamports. */
  minimumBalance(dataLength: number): number;
  /** A `Program log: ...` line in the transaction's logs. */
  log(message: string): void;
  /** Cross-program invocation with the caller's signers. */
  invoke(programId: PublicKey, accounts: CpiAccount[], data: Buffer): void;
  /** Cross-program invocation where PDAs of the caller (derived from `seeds`) also sign. */
  invokeSigned(
    programId: PublicKey,
    accounts: CpiAccount[],
    data: Buffer,
    seeds: Uint8Array[][],
  ): void;
}

export interface CpiAccount {
  pubkey: PublicKey;
  isSigner: boolean;
  isWritable: boolean;
}

export type { InstructionErrorKind } from '../../../src/localnet/transactions/instruction-errors';
import type { InstructionErrorKind } from '../../../src/localnet/transactions/instruction-errors';

export class InstructionFailure extends Error {
  constructor(
    readonly kind: InstructionErrorKind,
    message: string,
  ) {
    super(message);
    this.name = 'InstructionFailure';
  }
}

export interface NativeProgram {
  readonly programId: PublicKey;
  process(ctx: InvokeContext): void;
}
