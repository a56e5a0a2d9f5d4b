import { Keypair, Transaction, TransactionInstruction } from '@solana/web3.js';
import { SanitizedTransaction } from '../transactions/sanitized-transaction';
import { describeTransactionError, TransactionFailure } from '../transactions/transaction-error';
import { Bank } from './bank';

/**
 * Signs and runs a transaction the network itself issues (genesis, faucet) through the same
 * path as any client's: wire bytes, checks, fee, programs, atomic commit. Nothing is kept if it
 * fails; the failure is thrown with the transaction's logs.
 */
export function executeLocalTransaction(
  bank: Bank,
  instructions: TransactionInstruction[],
  signers: Keypair[],
): string {
  const tx = new Transaction({
    feePayer: signers[0].publicKey,
    recentBlockhash: bank.latestBlockhash,
  }).add(...instructions);
  tx.sign(...signers);
  const parsed = SanitizedTransaction.parse(tx.serialize());
  const { result } = bank.execute(parsed, false);
  if (result.err !== null) {
    const failure = new TransactionFailure(result.err);
    failure.message = `${describeTransactionError(result.err)}\n${result.logs.join('\n')}`;
    throw failure;
  }
  return parsed.signature;
}
