import { FailedTransactionMetadata } from 'litesvm';
import { transactionErrorJson } from '../../src/localnet/svm/svm-transaction-error';
import { InstructionErrorKind } from './program-host';

/**
 * litesvm's error as the native host reports it: the instruction's `{ Custom: n }` or variant
 * name, or the transaction error's name (the local network's own mapping, one place).
 */
export function errorKind(failed: FailedTransactionMetadata): InstructionErrorKind {
  const err = transactionErrorJson(failed.err());
  if (typeof err === 'string') return err;
  if ('InstructionError' in err) return err.InstructionError[1];
  return Object.keys(err)[0];
}
