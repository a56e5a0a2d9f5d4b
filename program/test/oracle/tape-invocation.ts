import { PublicKey } from '@solana/web3.js';
import {
  decodeConfig,
  decodeTape,
  NetworkConfig,
  TapeRecord,
} from '../../../src/chain/account-layouts';
import { LayoutError } from '../../../src/chain/byte-codec';
import { TapeErrorCode, TapeProgramError } from '../../../src/chain/program-errors';
import { SYSTEM_PROGRAM_ID } from '../../../src/chain/program-ids';
import { epochAt } from '../../../src/chain/storage-pricing';
import { AccountView, InvokeContext } from './native-program';
import { ProgramAddressCache } from './program-address-cache';
import { TapeSeeds } from './tape-seeds';

/** Largest value an account field may hold: the codecs read u64 fields as exact JS numbers. */
export const MAX_STORED_U64 = Number.MAX_SAFE_INTEGER;

export function fail(code: TapeErrorCode, detail: string): never {
  throw new TapeProgramError(code, detail);
}

/** Not created yet, or closed: owned by the System program with no data (lamports may be > 0). */
export function isVacant(view: AccountView): boolean {
  return view.owner.equals(SYSTEM_PROGRAM_ID) && view.data.length === 0;
}

export interface Loaded<T> {
  view: AccountView;
  record: T;
}

/**
 * One execution of the tape program: the instruction's accounts with the checks every
 * instruction shares (flags, addresses, owners, tags, PDA derivations).
 */
export class TapeInvocation {
  constructor(
    readonly ctx: InvokeContext,
    readonly addresses: ProgramAddressCache,
    readonly ataAddresses: ProgramAddressCache,
    readonly configAddress: PublicKey,
  ) {}

  get programId(): PublicKey {
    return this.addresses.programId;
  }

  get now(): number {
    return this.ctx.clock.unixTimestamp;
  }

  /** Account `index`; the dispatcher has checked the count. */
  at(index: number): AccountView {
    return this.ctx.accounts[index];
  }

  signer(index: number, role: string): AccountView {
    const view = this.at(index);
    if (!view.isSigner) fail(TapeErrorCode.UnauthorizedSigner, `${role} must sign`);
    return view;
  }

  writable(index: number, role: string): AccountView {
    const view = this.at(index);
    if (!view.isWritable) fail(TapeErrorCode.AccountMismatch, `${role} must be writable`);
    return view;
  }

  /** A payer or receiver: signs and is writable. */
  wallet(index: number, role: string): AccountView {
    this.signer(index, role);
    return this.writable(index, role);
  }

  expectAddress(index: number, expected: PublicKey, role: string): AccountView {
    const view = this.at(index);
    if (!view.pubkey.equals(expected)) fail(TapeErrorCode.AccountMismatch, `wrong ${role} account`);
    return view;
  }

  owns(view: AccountView): boolean {
    return view.owner.equals(this.programId);
  }

  /** Checks `address` is the PDA of `seeds`; returns the bump (needed to create the account). */
  expectPda(view: AccountView, seeds: Buffer[], role: string): number {
    const bump = this.addresses.bumpOf(seeds, view.pubkey, this.owns(view));
    if (bump === null) fail(TapeErrorCode.AccountMismatch, `${role} is not the expected address`);
    return bump;
  }

  config(index: number): NetworkConfig {
    const view = this.expectAddress(index, this.configAddress, 'config');
    return this.decodeOwned(view, 'config', decodeConfig);
  }

  tape(index: number): Loaded<TapeRecord> {
    const view = this.writable(index, 'tape');
    const record = this.decodeOwned(view, 'tape', decodeTape);
    this.expectPda(view, TapeSeeds.tape(record.authority), 'tape');
    return { view, record };
  }

  /** Decodes a program account: vacant → not found; foreign owner or bad bytes → invalid data. */
  decodeOwned<T>(view: AccountView, role: string, decode: (data: Buffer) => T): T {
    if (isVacant(view)) fail(TapeErrorCode.AccountNotFound, `${role} does not exist`);
    if (!this.owns(view))
      fail(TapeErrorCode.InvalidAccountData, `${role} is not a tape program account`);
    try {
      return decode(view.data);
    } catch (e) {
      if (e instanceof LayoutError) fail(TapeErrorCode.InvalidAccountData, `${role}: ${e.message}`);
      throw e;
    }
  }

  epoch(config: NetworkConfig): number {
    return epochAt(this.now, config.genesisTime, config.epochDurationSecs);
  }
}

/** The tape's authority, or its delegate when it has one. */
export function expectTapeSigner(tape: TapeRecord, signer: AccountView): void {
  const key = signer.pubkey;
  if (key.equals(tape.authority) || (tape.delegate !== null && key.equals(tape.delegate))) return;
  fail(TapeErrorCode.UnauthorizedSigner, 'signer is neither the tape authority nor its delegate');
}

export function expectActive(tape: TapeRecord, currentEpoch: number): void {
  if (currentEpoch >= tape.expiryEpoch) {
    fail(TapeErrorCode.TapeExpired, `tape expired at epoch ${tape.expiryEpoch}`);
  }
}

/** `needed` within capacity, compared exactly; `what` names the need ("kept versions need"). */
export function expectRoom(tape: TapeRecord, needed: number | bigint, what: string): void {
  const { capacity } = tape;
  if (BigInt(needed) > BigInt(capacity)) {
    fail(
      TapeErrorCode.InsufficientCapacity,
      `tape has ${capacity} bytes of capacity, ${what} ${needed}`,
    );
  }
}

/** `a + b` for a stored counter, checked in exact arithmetic so no sum can wrap or lose bits. */
export function checkedAdd(a: number, b: number, max: number, what: string): number {
  if (BigInt(a) + BigInt(b) > BigInt(max)) fail(TapeErrorCode.InvalidArgument, `${what} overflows`);
  return a + b;
}
