import { describeInstructionError, InstructionErrorKind } from './instruction-errors';

/**
 * Solana's `TransactionError` as JSON-RPC serialises it: unit variants are strings, the others
 * one-key objects (`{"InstructionError":[0,{"Custom":6000}]}`).
 */
export type TransactionErrorJson =
  | string
  | { InstructionError: [number, InstructionErrorKind] }
  | { InsufficientFundsForRent: { account_index: number } }
  | { DuplicateInstruction: number }
  | { ProgramExecutionTemporarilyRestricted: { account_index: number } };

const MESSAGES: Record<string, string> = {
  AccountInUse: 'Account in use',
  AccountLoadedTwice: 'Account loaded twice',
  AccountNotFound: 'Attempt to debit an account but found no record of a prior credit.',
  ProgramAccountNotFound: 'Attempt to load a program that does not exist',
  InsufficientFundsForFee: 'Insufficient funds for fee',
  InvalidAccountForFee: 'This account may not be used to pay transaction fees',
  AlreadyProcessed: 'This transaction has already been processed',
  BlockhashNotFound: 'Blockhash not found',
  CallChainTooDeep: 'Loader call chain is too deep',
  MissingSignatureForFee: 'Transaction requires a fee but has no signature present',
  InvalidAccountIndex: 'Transaction contains an invalid account reference',
  SignatureFailure: 'Transaction did not pass signature verification',
  InvalidProgramForExecution: 'This program may not be used for executing instructions',
  SanitizeFailure: 'Transaction failed to sanitize accounts offsets correctly',
  UnsupportedVersion: 'Transaction version is unsupported',
  InvalidWritableAccount: 'Transaction loads a writable account that cannot be written',
  AddressLookupTableNotFound: "Transaction loads an address table account that doesn't exist",
};

/** The `Display` text of a transaction error, as in "Transaction simulation failed: <text>". */
export function describeTransactionError(err: TransactionErrorJson): string {
  if (typeof err === 'string') return MESSAGES[err] ?? err;
  if ('InstructionError' in err) {
    const [index, kind] = err.InstructionError;
    return `Error processing Instruction ${index}: ${describeInstructionError(kind)}`;
  }
  if ('DuplicateInstruction' in err) {
    return `Transaction contains a duplicate instruction (${err.DuplicateInstruction}) that is not allowed`;
  }
  if ('ProgramExecutionTemporarilyRestricted' in err) {
    return `Execution of the program referenced by account at index ${err.ProgramExecutionTemporarilyRestricted.account_index} is temporarily restricted.`;
  }
  return `Transaction results in an account (${err.InsufficientFundsForRent.account_index}) with insufficient funds for rent`;
}

/** A transaction-level failure raised while checking or loading a transaction. */
export class TransactionFailure extends Error {
  constructor(readonly err: TransactionErrorJson) {
    super(describeTransactionError(err));
    this.name = 'TransactionFailure';
  }
}
