import { AccountWrite, StoredAccount } from '../ledger/ledger-store';
import { SanitizedTransaction } from '../transactions/sanitized-transaction';
import { TransactionErrorJson } from '../transactions/transaction-error';

/** The Clock sysvar's fields the network keeps: the current slot and its unix time. */
export interface Clock {
  slot: number;
  unixTimestamp: number;
}

/** What the bank knows that a transaction is checked against. */
export interface ProcessingEnvironment {
  clock: Clock;
  isBlockhashValid(blockhash: string): boolean;
  isProcessed(signature: Buffer): boolean;
}

/** An account after a simulated transaction (null: it does not exist afterwards). */
export interface SimulatedAccount {
  pubkey: Buffer;
  account: StoredAccount | null;
}

/**
 * The outcome of running a transaction. `chargeable`: it got past the fee payer checks, so it
 * is recorded (with its error, if any) and its fee is charged; otherwise it is dropped, as
 * Solana drops it. `writes` are the accounts it changed, as the ledger must store them.
 */
export interface ExecutionResult {
  chargeable: boolean;
  err: TransactionErrorJson | null;
  logs: string[];
  fee: number;
  unitsConsumed: number;
  writes: AccountWrite[];
  preBalances: number[];
  postBalances: number[];
  /** The transaction's accounts after it ran (simulateTransaction's `accounts`). */
  accounts: SimulatedAccount[];
}

/**
 * Runs transactions for the bank. `process` applies a transaction to the executor's state;
 * the bank then commits `writes` to the ledger, or calls `rollback` to undo a result it does
 * not keep (a failed preflight). `simulate` changes nothing.
 */
export interface TransactionExecutor {
  process(tx: SanitizedTransaction, env: ProcessingEnvironment): ExecutionResult;
  simulate(tx: SanitizedTransaction, env: ProcessingEnvironment): ExecutionResult;
  rollback(result: ExecutionResult): void;
}

export function droppedResult(err: TransactionErrorJson): ExecutionResult {
  return {
    chargeable: false,
    err,
    logs: [],
    fee: 0,
    unitsConsumed: 0,
    writes: [],
    preBalances: [],
    postBalances: [],
    accounts: [],
  };
}
