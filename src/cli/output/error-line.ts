import { ChainError } from '../../chain/chain-error';
import { KeypairFileError } from '../../chain/keypair-file';
import { TapeErrorCode } from '../../chain/program-errors';
import { CliError } from '../cli-error';
import { expiredMessage } from './expiry-notice';

/**
 * One line for any error that ends a command: no stack trace, the cause in words, and the fix
 * when there is one. Program errors that the CLI normally catches before signing (capacity,
 * expiry, signer) can still come back from the chain when something changed in between.
 */
export function describeError(err: unknown): string {
  const line = (text: string) => text.replace(/\s*\n\s*/g, ' ').trim();
  if (err instanceof CliError || err instanceof KeypairFileError) return line(err.message);
  if (err instanceof ChainError) return line(describeChainError(err));
  if (err instanceof Error) {
    if (err.name === 'RangeError' || err.name === 'TypeError')
      return line(`unexpected error: ${err.message}`);
    return line(err.message || err.name);
  }
  return line(String(err));
}

function describeChainError(err: ChainError): string {
  switch (err.code) {
    case TapeErrorCode.InsufficientCapacity:
      return 'insufficient capacity (fix: tape resize --add <size>)';
    case TapeErrorCode.TapeExpired:
      return expiredMessage();
    case TapeErrorCode.UnauthorizedSigner:
      return "unauthorized signer: the keypair used is neither the tape's keypair nor its delegate (pass the tape's keypair with -k)";
    case TapeErrorCode.InsufficientFunds:
      return 'insufficient funds: the wallet cannot pay (fix: fund the wallet, e.g. tape airdrop on a local network)';
    case TapeErrorCode.InvalidArgument:
    case TapeErrorCode.AccountMismatch:
    case TapeErrorCode.AlreadyExists:
    case TapeErrorCode.AccountNotFound:
    case TapeErrorCode.InvalidAccountData:
    case TapeErrorCode.VersionConflict:
    case undefined:
      return err.message;
  }
}
