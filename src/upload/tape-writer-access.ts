import { StorageAuthorityUnfundedError } from '../chain/key-balance/key-unfunded-error';
import { Injectable } from '@nestjs/common';
import { PublicKey } from '@solana/web3.js';
import type { TapeRecord } from '../chain/account-layouts';
import { ChainError } from '../chain/chain-error';
import { ChainReader } from '../chain/chain-reader';
import { parseAddress } from '../chain/tape-label';
import { SignedCheck, SignedHeaders, verifySigned } from './upload-auth';
import { uploadErrors } from './upload-error';

/** A tape a signed request may write to, as the chain had it when the request was checked. */
export interface WritableTape {
  address: PublicKey;
  tape: TapeRecord;
  signer: PublicKey;
}

/**
 * The checks every signed request of a tape's writer passes, in the uploads' order
 * (docs/uploads.md): a well-formed tape address (400), the tape on chain (404), a fresh valid
 * signature (400/401), the tape's authority or delegate (403), an active tape (410). A chain
 * that cannot be read is 503.
 */
@Injectable()
export class TapeWriterAccess {
  constructor(private readonly chain: ChainReader) {}

  async authorize(
    tapeText: string,
    headers: SignedHeaders,
    messageAt: (timestamp: number) => Buffer,
  ): Promise<WritableTape> {
    const parsed = parseAddress(tapeText);
    if (!parsed) throw uploadErrors.badRequest('malformed tape address');
    const address = new PublicKey(parsed);
    const tape = await chainRead(() => this.chain.getTape(address));
    if (!tape) throw uploadErrors.notFound('no such tape on chain');
    const signer = requireTapeWriter(tape, verifySigned(headers, messageAt));
    await requireActive(this.chain, tape);
    return { address, tape, signer };
  }
}

/** The signer of a checked request, when it may write the tape (else 400, 401 or 403). */
export function requireTapeWriter(tape: TapeRecord, auth: SignedCheck): PublicKey {
  if (!auth.ok) {
    throw auth.reason === 'malformed'
      ? uploadErrors.badRequest('missing or malformed X-Tape-Signer/Timestamp/Signature')
      : uploadErrors.unauthorized(
          auth.reason === 'stale' ? 'stale timestamp' : 'signature does not match',
        );
  }
  if (!isTapeWriter(tape, auth.signer)) {
    throw uploadErrors.forbidden("the signer is neither the tape's authority nor its delegate");
  }
  return auth.signer;
}

/** 410 once the tape has expired (chain time, docs/program.md). */
export async function requireActive(chain: ChainReader, tape: TapeRecord): Promise<void> {
  const epoch = await chainRead(() => chain.currentEpoch());
  if (epoch >= tape.expiryEpoch) throw uploadErrors.gone('tape expired');
}

export function isTapeWriter(tape: TapeRecord, signer: PublicKey): boolean {
  return tape.authority.equals(signer) || (tape.delegate?.equals(signer) ?? false);
}

/** A chain read whose transport failure is the route's 503 (a program error stays as it is). */
export async function chainRead<T>(call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (err) {
    // The storage-authority key cannot pay: one line naming it, at once (docs/operator.md).
    if (err instanceof StorageAuthorityUnfundedError) throw uploadErrors.unfunded(err.message);
    if (err instanceof ChainError && err.kind !== 'program') {
      throw uploadErrors.unavailable(err.message);
    }
    throw err;
  }
}
