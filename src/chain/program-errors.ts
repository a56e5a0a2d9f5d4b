/**
 * The tape program's errors: stable codes (Solana `Custom` instruction errors) and messages.
 * Codes start at 6000 like Anchor programs, so they never collide with Solana's own.
 */
export enum TapeErrorCode {
  InsufficientCapacity = 6000,
  TapeExpired = 6001,
  UnauthorizedSigner = 6002,
  InsufficientFunds = 6003,
  InvalidArgument = 6004,
  // 6005 track not certified and 6006 track in use: per-file instructions, retired in 1.2.0.
  AccountMismatch = 6007,
  AlreadyExists = 6008,
  AccountNotFound = 6009,
  InvalidAccountData = 6010,
  // 6011 invalid name: SetName, retired in 1.2.0.
  VersionConflict = 6012,
}

export const TAPE_ERROR_MESSAGES: Record<TapeErrorCode, string> = {
  [TapeErrorCode.InsufficientCapacity]: 'insufficient capacity',
  [TapeErrorCode.TapeExpired]: 'tape expired',
  [TapeErrorCode.UnauthorizedSigner]: 'unauthorized signer',
  [TapeErrorCode.InsufficientFunds]: 'insufficient funds',
  [TapeErrorCode.InvalidArgument]: 'invalid argument',
  [TapeErrorCode.AccountMismatch]: 'account mismatch',
  [TapeErrorCode.AlreadyExists]: 'already exists',
  [TapeErrorCode.AccountNotFound]: 'account not found',
  [TapeErrorCode.InvalidAccountData]: 'invalid account data',
  [TapeErrorCode.VersionConflict]: 'version conflict',
};

/** Thrown by the native program; carries the code a Solana node reports as `{"Custom": code}`. */
export class TapeProgramError extends Error {
  constructor(
    readonly code: TapeErrorCode,
    readonly detail?: string,
  ) {
    super(detail ? `${TAPE_ERROR_MESSAGES[code]}: ${detail}` : TAPE_ERROR_MESSAGES[code]);
    this.name = 'TapeProgramError';
  }
}

export function tapeErrorMessage(code: number): string | undefined {
  return TAPE_ERROR_MESSAGES[code as TapeErrorCode];
}
