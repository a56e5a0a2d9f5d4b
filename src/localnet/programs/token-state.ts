import { PublicKey } from '@solana/web3.js';
import { TOKEN_PROGRAM_ID } from '../../chain/program-ids';
import {
  decodeMint,
  decodeTokenAccount,
  encodeMint,
  encodeTokenAccount,
  MINT_SIZE,
  MintRecord,
  TOKEN_ACCOUNT_SIZE,
  TokenAccountRecord,
} from '../../chain/spl-token-layouts';
import { AccountView, InstructionFailure } from '../runtime/native-program';

/** SPL Token's `TokenError` codes and the messages it logs as `Program log: Error: ...`. */
export const TokenError = {
  NotRentExempt: [0, 'Lamport balance below rent-exempt threshold'],
  InsufficientFunds: [1, 'insufficient funds'],
  InvalidMint: [2, 'Invalid Mint'],
  MintMismatch: [3, 'Account not associated with this Mint'],
  OwnerMismatch: [4, 'owner does not match'],
  FixedSupply: [5, 'the total supply of this token is fixed'],
  AlreadyInUse: [6, 'account or token already in use'],
  UninitializedState: [9, 'State is uninitialized'],
  NonNativeHasBalance: [11, 'Non-native account can only be closed if its balance is zero'],
  InvalidInstruction: [12, 'Invalid instruction'],
  Overflow: [14, 'Operation overflowed'],
  AccountFrozen: [17, 'Account is frozen'],
  MintDecimalsMismatch: [18, 'The provided decimals value different from the Mint decimals'],
} as const satisfies Record<string, readonly [number, string]>;

export function tokenFailure(error: readonly [number, string]): InstructionFailure {
  return new InstructionFailure({ Custom: error[0] }, `Error: ${error[1]}`);
}

const U64_MAX = 0xffff_ffff_ffff_ffffn;
const FROZEN = 2;

function ownedByToken(view: AccountView): void {
  if (!view.owner.equals(TOKEN_PROGRAM_ID)) throw new InstructionFailure('IncorrectProgramId', '');
}

function decodeOrFail<T>(decode: (d: Buffer) => T, data: Buffer): T {
  try {
    return decode(data);
  } catch {
    throw new InstructionFailure('InvalidAccountData', '');
  }
}

/** An initialized mint, or the error SPL Token gives for the account passed as one. */
export function readMint(view: AccountView, invalid = TokenError.InvalidMint): MintRecord {
  if (!view.owner.equals(TOKEN_PROGRAM_ID) || view.data.length !== MINT_SIZE) {
    throw tokenFailure(invalid);
  }
  const mint = decodeOrFail(decodeMint, view.data);
  if (!mint.isInitialized) throw tokenFailure(invalid);
  return mint;
}

export function writeMint(view: AccountView, mint: MintRecord): void {
  view.data = encodeMint(mint);
}

/** An initialized, unfrozen token account. */
export function readTokenAccount(view: AccountView): TokenAccountRecord {
  ownedByToken(view);
  if (view.data.length !== TOKEN_ACCOUNT_SIZE)
    throw new InstructionFailure('InvalidAccountData', '');
  const account = decodeOrFail(decodeTokenAccount, view.data);
  if (account.state === 0) throw tokenFailure(TokenError.UninitializedState);
  if (account.state === FROZEN) throw tokenFailure(TokenError.AccountFrozen);
  return account;
}

export function writeTokenAccount(view: AccountView, account: TokenAccountRecord): void {
  view.data = encodeTokenAccount(account);
}

/** An account about to be initialized: right owner and size, not yet in use. */
export function checkUninitialized(view: AccountView, size: number, minimumBalance: number): void {
  ownedByToken(view);
  if (view.data.length !== size) throw new InstructionFailure('InvalidAccountData', '');
  if (view.data.some((b) => b !== 0)) throw tokenFailure(TokenError.AlreadyInUse);
  if (view.lamports < minimumBalance) throw tokenFailure(TokenError.NotRentExempt);
}

/** The owner (or its signature) must authorise a change to a token account. */
export function checkAuthority(expected: PublicKey, authority: AccountView): void {
  if (!expected.equals(authority.pubkey)) throw tokenFailure(TokenError.OwnerMismatch);
  if (!authority.isSigner) throw new InstructionFailure('MissingRequiredSignature', '');
}

export function checkedAdd(a: bigint, b: bigint): bigint {
  const sum = a + b;
  if (sum > U64_MAX) throw tokenFailure(TokenError.Overflow);
  return sum;
}
