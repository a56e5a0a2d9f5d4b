import { SendTransactionError } from '@solana/web3.js';
import { ChainError, toChainError, VersionConflictError } from './chain-error';
import { TapeErrorCode } from './program-errors';

const RPC = 'http://127.0.0.1:8899';

describe('toChainError', () => {
  it('maps 6012 to a VersionConflictError carrying the version the program names', () => {
    const logs = [
      'Program Tape111111111111111111111111111111111111111 invoke [1]',
      'Program log: Instruction: Publish',
      'Program log: Error: version conflict',
      'Program log: Detail: tape is at sequence 7, not 6',
    ];
    const sent = new SendTransactionError({
      action: 'send',
      signature: '',
      transactionMessage:
        'Transaction simulation failed: Error processing Instruction 1: custom program error: 0x177c',
      logs,
    });
    const err = toChainError(sent, RPC);
    expect(err).toBeInstanceOf(VersionConflictError);
    expect(err).toBeInstanceOf(ChainError);
    expect(err.is(TapeErrorCode.VersionConflict)).toBe(true);
    expect(err.message).toBe('version conflict');
    expect((err as VersionConflictError).currentSequence).toBe(7);
  });

  it('keeps the conflict typed when the logs do not name the version', () => {
    const err = toChainError(new Error('{"InstructionError":[0,{"Custom":6012}]}'), RPC);
    expect(err).toBeInstanceOf(VersionConflictError);
    expect((err as VersionConflictError).currentSequence).toBeNull();
  });

  it('maps other program errors to a plain ChainError with their code', () => {
    const err = toChainError(new Error('{"InstructionError":[0,{"Custom":6000}]}'), RPC);
    expect(err).not.toBeInstanceOf(VersionConflictError);
    expect(err.code).toBe(TapeErrorCode.InsufficientCapacity);
    expect(err.message).toBe('insufficient capacity');
  });
});
