/** A Solana `InstructionError` variant: a string like 'InvalidArgument' or `{ Custom: n }`. */
export type InstructionErrorKind = string | { Custom: number };

/** Display text of Solana's `InstructionError` variants, as `Program X failed: <text>` shows them. */
const DESCRIPTIONS: Record<string, string> = {
  GenericError: 'generic instruction error',
  InvalidArgument: 'invalid program argument',
  InvalidInstructionData: 'invalid instruction data',
  InvalidAccountData: 'invalid account data for instruction',
  AccountDataTooSmall: 'account data too small for instruction',
  InsufficientFunds: 'insufficient funds for instruction',
  IncorrectProgramId: 'incorrect program id for instruction',
  MissingRequiredSignature: 'missing required signature for instruction',
  AccountAlreadyInitialized: 'instruction requires an uninitialized account',
  UninitializedAccount: 'instruction requires an initialized account',
  UnbalancedInstruction: 'sum of account balances before and after instruction do not match',
  ModifiedProgramId: 'instruction illegally modified the program id of an account',
  ExternalAccountLamportSpend: 'instruction spent from the balance of an account it does not own',
  ExternalAccountDataModified: 'instruction modified data of an account it does not own',
  ReadonlyLamportChange: 'instruction changed the balance of a read-only account',
  ReadonlyDataModified: 'instruction modified data of a read-only account',
  ExecutableModified: 'instruction changed executable bit of an account',
  ExecutableLamportChange: 'instruction changed the balance of an executable account',
  ExecutableDataModified: 'instruction changed executable accounts data',
  AccountDataSizeChanged: 'instruction changed the size of the account data',
  NotEnoughAccountKeys: 'insufficient account keys for instruction',
  MissingAccount: 'An account required by the instruction is missing',
  PrivilegeEscalation: 'Cross-program invocation with unauthorized signer or writable account',
  UnsupportedProgramId: 'Unsupported program id',
  CallDepth: 'Cross-program invocation call depth too deep',
  InvalidSeeds: 'Provided seeds do not result in a valid address',
  InvalidRealloc: 'Failed to reallocate account data',
  ArithmeticOverflow: 'Program arithmetic overflowed',
  AccountNotRentExempt: 'An account does not have enough lamports to be rent-exempt',
  IllegalOwner: 'Provided owner is not allowed',
  InvalidAccountOwner: 'Invalid account owner',
  ProgramFailedToComplete: 'Program failed to complete',
  ComputationalBudgetExceeded: 'Computational budget exceeded',
  ReentrancyNotAllowed: 'Cross-program invocation reentrancy not allowed for this instruction',
};

export function describeInstructionError(kind: InstructionErrorKind): string {
  if (typeof kind === 'object') return `custom program error: 0x${kind.Custom.toString(16)}`;
  return DESCRIPTIONS[kind] ?? kind;
}
