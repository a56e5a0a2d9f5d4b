import { ChainError, VersionConflictError } from '../../chain/chain-error';
import { TapeErrorCode } from '../../chain/program-errors';
import { StorageAuthorityUnfundedError } from '../../chain/key-balance/key-unfunded-error';
import { ApiError } from '../../http/api-error';
import { RulesError } from '../../versions/rules/site-rules';
import {
  S3BackendAccessDeniedError,
  S3BackendError,
  S3BackendInsufficientCapacityError,
  S3BackendInvalidArgumentError,
  S3BackendSlowDownError,
  S3BackendTapeExpiredError,
  S3BackendUnpaidError,
} from '../s3-backend';

/** A chain write failed for a reason that is not the client's (answered 500, logged). */
export class TapeWriteFailedError extends S3BackendError {}

/** The message of an undelegated tape: it names the command that fixes it. */
export function notDelegatedMessage(gatewayKey: string): string {
  return `tape not delegated to this gateway (run: tape delegate ${gatewayKey})`;
}

/**
 * Program errors of a chain write as the S3 refusals they stand for. The tape's state can change
 * between the checks made before a write and the write itself (another writer filled the tape,
 * the reservation ended, the owner revoked the delegation): the program is the last word.
 */
export function chainWriteError(error: unknown, gatewayKey: string): Error {
  if (error instanceof StorageAuthorityUnfundedError)
    return new S3BackendUnpaidError(error.message);
  if (!(error instanceof ChainError) || error.kind !== 'program') return error as Error;
  if (error.is(TapeErrorCode.InsufficientCapacity) || error.message === 'insufficient capacity') {
    return new S3BackendInsufficientCapacityError('the tape program refused the write');
  }
  if (error.is(TapeErrorCode.TapeExpired) || error.message === 'tape expired') {
    return new S3BackendTapeExpiredError();
  }
  if (error.is(TapeErrorCode.UnauthorizedSigner) || error.message === 'unauthorized signer') {
    return new S3BackendAccessDeniedError(notDelegatedMessage(gatewayKey));
  }
  return new TapeWriteFailedError(`chain write refused: ${error.message}`);
}

/**
 * A group's failure that no S3 refusal stands for, as each of its writes gets it (a PutObject's
 * 500, a DeleteObjects key's `<Message>`): why, in the gateway's words, never an RPC address,
 * a transaction's logs or a stack (the group's warning in the log has the whole error).
 */
export function groupFailedError(error: unknown): TapeWriteFailedError {
  return new TapeWriteFailedError(`the tape's next version was not published: ${reasonOf(error)}`);
}

/**
 * A commit group's failure as the S3 refusal each of its writes gets: the certification's
 * answer (ApiError), a rule file the fence refuses, other writers winning every time, or the
 * chain write's own error (`explain`: what the gateway key's balance says of it).
 */
export async function groupRefusal(
  error: unknown,
  gatewayKey: string,
  explain: (error: unknown) => Promise<unknown>,
): Promise<Error> {
  if (error instanceof S3BackendError) return error;
  // A `_redirects` or `_headers` in the group that the fence refuses (docs/site.md, "Rules").
  if (error instanceof RulesError) return new S3BackendInvalidArgumentError(error.message);
  if (error instanceof ApiError) {
    const status = error.getStatus();
    if (status === 413) return new S3BackendInsufficientCapacityError(error.message);
    if (status === 403) return new S3BackendAccessDeniedError(notDelegatedMessage(gatewayKey));
    if (status === 507) return new S3BackendUnpaidError(error.message);
    if (status === 410) return new S3BackendTapeExpiredError(error.message);
    if (status === 409 || status >= 500) {
      return new S3BackendSlowDownError(
        `the tape's version could not be published: ${error.message}`,
      );
    }
    return new TapeWriteFailedError(`the version was not certified: ${error.message}`);
  }
  if (error instanceof VersionConflictError) {
    return new S3BackendSlowDownError('other writers kept publishing first; try again');
  }
  const refusal = chainWriteError(await explain(error), gatewayKey);
  return refusal instanceof S3BackendError ? refusal : groupFailedError(refusal);
}

function reasonOf(error: unknown): string {
  if (error instanceof S3BackendError && error.message) return error.message;
  if (!(error instanceof ChainError)) return 'an unexpected error in the gateway; try again';
  switch (error.kind) {
    case 'program':
      return `the tape program refused it (${error.message})`;
    case 'transaction':
      return `the chain refused its transaction (${error.message})`;
    case 'unreachable':
      return "the gateway could not reach the chain's RPC; try again";
    case 'timeout':
      return 'its transaction was not confirmed in time; try again';
    case 'rpc':
      return "the chain's RPC failed the request; try again";
  }
}
