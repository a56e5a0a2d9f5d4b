import { ChainError } from '../../chain/chain-error';
import { TapeErrorCode } from '../../chain/program-errors';
import { StorageAuthorityUnfundedError } from '../../chain/key-balance/key-unfunded-error';
import {
  S3BackendAccessDeniedError,
  S3BackendInsufficientCapacityError,
  S3BackendTapeExpiredError,
  S3BackendUnpaidError,
} from '../s3-backend';
import { backendErrorToS3, insufficientCapacityMessage } from '../s3-error-mapping';
import { chainWriteError, groupFailedError, TapeWriteFailedError } from './chain-write-errors';

const KEY = 'hR2uCbBrhccHRDcCKbTqPc9SQ2GLuWLcHomiLiFM8n9';
const program = (code: TapeErrorCode, message: string) => new ChainError('program', message, code);

describe('chainWriteError', () => {
  it('a write the gateway key cannot pay for is a 507 naming the key, which clients do not retry', () => {
    const unpaid = chainWriteError(new StorageAuthorityUnfundedError(KEY, 0, 5000), KEY);
    expect(unpaid).toBeInstanceOf(S3BackendUnpaidError);
    const s3 = backendErrorToS3(unpaid, {});
    expect([s3?.status, s3?.code]).toEqual([507, 'InsufficientStorage']);
    expect(s3?.message).toContain(`the gateway's operator must fund ${KEY}`);
  });

  it('a full tape found by the program is the S3 "insufficient capacity" refusal', () => {
    const error = chainWriteError(
      program(TapeErrorCode.InsufficientCapacity, 'insufficient capacity'),
      KEY,
    );
    expect(error).toBeInstanceOf(S3BackendInsufficientCapacityError);
    expect(insufficientCapacityMessage(error.message)).toMatch(/^insufficient capacity/);
  });

  it('maps expiry and a withdrawn delegation, naming the command that fixes it', () => {
    expect(chainWriteError(program(TapeErrorCode.TapeExpired, 'tape expired'), KEY)).toBeInstanceOf(
      S3BackendTapeExpiredError,
    );
    const denied = chainWriteError(
      program(TapeErrorCode.UnauthorizedSigner, 'unauthorized signer'),
      KEY,
    );
    expect(denied).toBeInstanceOf(S3BackendAccessDeniedError);
    expect(denied.message).toBe(`tape not delegated to this gateway (run: tape delegate ${KEY})`);
  });

  it('other program errors fail the write; transport errors pass through unchanged', () => {
    expect(
      chainWriteError(program(TapeErrorCode.AccountMismatch, 'account mismatch'), KEY),
    ).toBeInstanceOf(TapeWriteFailedError);
    const unreachable = new ChainError('unreachable', 'cannot reach the chain RPC');
    expect(chainWriteError(unreachable, KEY)).toBe(unreachable);
  });
});

describe('groupFailedError', () => {
  it("says why a group failed in the gateway's words, never the RPC address or a stack", () => {
    const unreachable = groupFailedError(
      new ChainError('unreachable', 'cannot reach the chain RPC at http://10.0.0.7:8899'),
    );
    expect(unreachable).toBeInstanceOf(TapeWriteFailedError);
    expect(unreachable.message).toBe(
      "the tape's next version was not published: the gateway could not reach the chain's RPC; try again",
    );
    const refused = groupFailedError(program(TapeErrorCode.TapeExpired, 'tape expired'));
    expect(refused.message).toContain('the tape program refused it (tape expired)');
    const odd = new Error('boom');
    odd.stack = 'Error: boom\n    at secret (/srv/gateway/dist/x.js:1:1)';
    const unexpected = groupFailedError(odd);
    expect(unexpected.message).not.toMatch(/boom|secret|\/srv/);
    expect(unexpected.message).toContain('an unexpected error in the gateway');
    expect(
      groupFailedError(new TapeWriteFailedError('the version was not certified: x')).message,
    ).toContain('the version was not certified: x');
  });
});
