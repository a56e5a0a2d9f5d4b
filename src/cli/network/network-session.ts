import { toChainError } from '../../chain/chain-error';
import { CliError } from '../cli-error';
import { TapeSession } from '../session/tape-session';

/** What `tape network …` needs of the command's invocation (TapeSession has all of it). */
export type NetworkSession = Pick<
  TapeSession,
  'chain' | 'rpcUrl' | 'wallet' | 'guarded' | 'computeUnitPrice' | 'explicitProgramId' | 'programId'
>;

/**
 * Work against the cluster, failing fast if its RPC goes away, and failing as one line: a
 * CliError as it is, anything else as the chain error it is (with the RPC URL).
 */
export function onCluster<T>(session: NetworkSession, work: Promise<T>): Promise<T> {
  return session.guarded(work).catch((err: unknown) => {
    throw err instanceof CliError ? err : toChainError(err, session.rpcUrl);
  });
}
