import { SendTransactionError } from '@solana/web3.js';
import { TapeErrorCode, tapeErrorMessage } from './program-errors';

export type ChainErrorKind = 'program' | 'transaction' | 'unreachable' | 'rpc' | 'timeout';

/** Every failure of the chain services: one clear line, with the program error code when there is one. */
export class ChainError extends Error {
  constructor(
    readonly kind: ChainErrorKind,
    message: string,
    readonly code?: TapeErrorCode,
    readonly logs: string[] = [],
  ) {
    super(message);
    this.name = 'ChainError';
  }

  is(code: TapeErrorCode): boolean {
    return this.code === code;
  }
}

/**
 * A tape change lost its compare-and-swap: another writer changed the tape first (its
 * `sequence` moved). The caller re-reads the tape (`currentSequence` is its sequence when the
 * program refused; null if the logs did not say), rebases its change and sends it again.
 */
export class VersionConflictError extends ChainError {
  constructor(
    readonly currentSequence: number | null,
    logs: string[] = [],
  ) {
    super('program', 'version conflict', TapeErrorCode.VersionConflict, logs);
    this.name = 'VersionConflictError';
  }

  /** Reads the sequence the program names in its `Detail:` line. */
  static fromLogs(logs: string[]): VersionConflictError {
    const detail = logs.map((l) => /Detail: tape is at sequence (\d+),/.exec(l)).find(Boolean);
    return new VersionConflictError(detail ? Number(detail[1]) : null, logs);
  }
}

/** The message of a transaction its fee payer could not pay for (fees or rent). */
export const INSUFFICIENT_FUNDS = 'insufficient funds (SOL for fees and rent)';

/** A transaction refused because its fee payer holds too little SOL. */
export function isInsufficientFunds(err: unknown): boolean {
  return (
    err instanceof ChainError && err.kind === 'transaction' && err.message === INSUFFICIENT_FUNDS
  );
}

/** Maps web3.js and RPC failures to ChainError (program errors by their Custom code). */
export function toChainError(err: unknown, rpcUrl: string): ChainError {
  if (err instanceof ChainError) return err;
  const logs = err instanceof SendTransactionError ? (err.logs ?? []) : [];
  const text = err instanceof Error ? err.message : String(err);
  const custom = /"Custom":\s*(\d+)|custom program error: 0x([0-9a-f]+)/i.exec(
    text + ' ' + JSON.stringify((err as { transactionError?: unknown })?.transactionError ?? ''),
  );
  if (custom) {
    const code = custom[1] ? Number(custom[1]) : parseInt(custom[2], 16);
    if (code === Number(TapeErrorCode.VersionConflict)) return VersionConflictError.fromLogs(logs);
    const message = tapeErrorMessage(code);
    if (message) return new ChainError('program', message, code, logs);
  }
  const logged = logs.map((l) => /Program log: Error: (.+)$/.exec(l)?.[1]).find(Boolean);
  if (logged) return new ChainError('program', logged, undefined, logs);
  if (/fetch failed|ECONNREFUSED|ENOTFOUND|EHOSTUNREACH|ECONNRESET|socket hang up/i.test(text)) {
    return new ChainError('unreachable', `cannot reach the chain RPC at ${rpcUrl}`);
  }
  if (/block height exceeded|was not confirmed in/i.test(text)) {
    return new ChainError('timeout', `transaction not confirmed in time (${rpcUrl})`);
  }
  if (/insufficient funds|InsufficientFundsForFee|Attempt to debit an account/i.test(text)) {
    return new ChainError('transaction', INSUFFICIENT_FUNDS, undefined, logs);
  }
  return new ChainError('rpc', firstLine(text), undefined, logs);
}

function firstLine(text: string): string {
  return text.split('\n')[0].slice(0, 300);
}
