import { PublicKey } from '@solana/web3.js';
import { SYSTEM_PROGRAM_ID, LAMPORTS_PER_SIGNATURE } from '../../chain/program-ids';
import { AccountWrite, LedgerStore } from '../ledger/ledger-store';
import { InstructionRuntime } from './instruction-runtime';
import { Clock, InstructionFailure } from './native-program';
import { ProgramAddressDeriver } from './program-address';
import { ProgramRegistry } from './program-registry';
import { PublicKeyPool } from './public-key-pool';
import { minimumBalance } from '../transactions/rent';
import { SanitizedTransaction } from '../transactions/sanitized-transaction';
import { AccountHandle, TransactionAccount } from './transaction-account';
import { TransactionErrorJson } from '../transactions/transaction-error';

/** What the bank knows that a transaction is checked against. */
export interface ProcessingEnvironment {
  clock: Clock;
  isBlockhashValid(blockhash: string): boolean;
  isProcessed(signature: Buffer): boolean;
}

/**
 * The outcome of running a transaction against the ledger without writing anything.
 * `chargeable`: it got past the fee payer checks, so it is recorded (with its error, if any)
 * and its fee is charged; otherwise it is dropped, as Solana drops it.
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
  /** The loaded accounts after the transaction (for simulateTransaction's `accounts`). */
  accounts: TransactionAccount[];
}

export function transactionFee(signatureCount: number): number {
  return signatureCount * LAMPORTS_PER_SIGNATURE;
}

/** Checks, charges and executes one sanitized transaction; the bank commits the result. */
export class TransactionProcessor {
  private readonly keys = new PublicKeyPool();

  constructor(
    private readonly ledger: LedgerStore,
    private readonly registry: ProgramRegistry,
    private readonly addresses: ProgramAddressDeriver,
  ) {}

  process(tx: SanitizedTransaction, env: ProcessingEnvironment): ExecutionResult {
    const fee = transactionFee(tx.header.numRequiredSignatures);
    const dropped = (err: TransactionErrorJson): ExecutionResult => ({
      chargeable: false,
      err,
      logs: [],
      fee: 0,
      unitsConsumed: 0,
      writes: [],
      preBalances: [],
      postBalances: [],
      accounts: [],
    });
    if (!env.isBlockhashValid(tx.recentBlockhash)) return dropped('BlockhashNotFound');
    if (env.isProcessed(tx.signatures[0])) return dropped('AlreadyProcessed');

    const accounts = tx.accountKeys.map((key, i) => this.load(key, tx.keyBytes[i]));
    const payer = accounts[0];
    if (!payer.original) return dropped('AccountNotFound');
    if (!payer.owner.equals(SYSTEM_PROGRAM_ID)) return dropped('InvalidAccountForFee');
    if (payer.lamports < fee) return dropped('InsufficientFundsForFee');
    const afterFee = payer.lamports - fee;
    if (afterFee > 0 && afterFee < minimumBalance(payer.data.length)) {
      return dropped({ InsufficientFundsForRent: { account_index: 0 } });
    }
    payer.lamports = afterFee;
    const preBalances = accounts.map((a) => a.original?.lamports ?? 0);

    const writable = this.writability(tx);
    const runtime = new InstructionRuntime(this.registry, this.addresses, env.clock);
    const err = this.checkLoad(tx, accounts, writable) ?? this.run(tx, accounts, writable, runtime);
    const failed = err !== null;
    const writes: AccountWrite[] = failed
      ? [feeOnlyWrite(payer, afterFee)]
      : accounts.filter((a) => a.changed()).map((a) => toWrite(a));
    const postBalances = failed
      ? preBalances.map((b, i) => (i === 0 ? afterFee : b))
      : accounts.map((a) => a.lamports);
    return {
      chargeable: true,
      err,
      logs: runtime.logs.lines,
      fee,
      unitsConsumed: runtime.unitsConsumed,
      writes,
      preBalances,
      postBalances,
      accounts,
    };
  }

  private load(key: PublicKey, keyBytes: Buffer): TransactionAccount {
    const stored = this.ledger.getAccount(keyBytes);
    const owner = stored ? this.keys.of(stored.owner) : SYSTEM_PROGRAM_ID;
    return new TransactionAccount(key, keyBytes, stored, owner);
  }

  /** Writable per header, minus what Solana demotes: invoked programs and reserved ids. */
  private writability(tx: SanitizedTransaction): boolean[] {
    const invoked = new Set(tx.instructions.map((ix) => ix.programIdIndex));
    return tx.accountKeys.map(
      (_, i) =>
        tx.isWritableByHeader(i) && !invoked.has(i) && !this.registry.isReserved(tx.keyBytes[i]),
    );
  }

  /** Load-time failures after the fee is taken: bad program ids, writable executables. */
  private checkLoad(
    tx: SanitizedTransaction,
    accounts: TransactionAccount[],
    writable: boolean[],
  ): TransactionErrorJson | null {
    for (const ix of tx.instructions) {
      const program = accounts[ix.programIdIndex];
      if (!program.original) return 'ProgramAccountNotFound';
      if (!program.executable || !this.registry.get(program.keyBytes)) {
        return 'InvalidProgramForExecution';
      }
    }
    if (accounts.some((a, i) => writable[i] && a.executable)) return 'InvalidWritableAccount';
    return null;
  }

  private run(
    tx: SanitizedTransaction,
    accounts: TransactionAccount[],
    writable: boolean[],
    runtime: InstructionRuntime,
  ): TransactionErrorJson | null {
    for (let i = 0; i < tx.instructions.length; i++) {
      const ix = tx.instructions[i];
      const handles = ix.accountIndexes.map(
        (idx) => new AccountHandle(accounts[idx], tx.isSigner(idx), writable[idx]),
      );
      try {
        runtime.execute(accounts[ix.programIdIndex].pubkey, handles, ix.data);
      } catch (err) {
        if (!(err instanceof InstructionFailure)) throw err;
        return { InstructionError: [i, err.kind] };
      }
    }
    for (let i = 0; i < accounts.length; i++) {
      const a = accounts[i];
      if (!writable[i] || a.lamports === 0 || !a.changed()) continue;
      if (a.lamports < minimumBalance(a.data.length)) {
        return { InsufficientFundsForRent: { account_index: i } };
      }
    }
    return null;
  }
}

/** A failed transaction keeps only its fee payment. */
function feeOnlyWrite(payer: TransactionAccount, afterFee: number): AccountWrite {
  const original = payer.original;
  if (!original || afterFee === 0) return { pubkey: payer.keyBytes, account: null };
  return { pubkey: payer.keyBytes, account: { ...original, lamports: afterFee } };
}

/** Zero lamports at the end of a transaction: Solana purges the account. */
function toWrite(a: TransactionAccount): AccountWrite {
  return { pubkey: a.keyBytes, account: a.lamports === 0 ? null : a.toStored() };
}
