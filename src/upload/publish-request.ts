import { PublicKey } from '@solana/web3.js';
import { isCommitmentHex } from '../tracks/commitment';
import { uploadErrors } from './upload-error';

/**
 * The body of `POST /publish/{tape}` (docs/uploads.md, "Publish"):
 * `{"root": "<hex>", "expected_sequence": <n>, "fee_payer": "<base58>", "alias": "<name>"}`
 * (`alias` optional: publish a preview under that name, the live version unchanged). The
 * signature covers these exact bytes, so they are parsed here, after it was checked.
 */
export class PublishBody {
  private constructor(
    readonly root: Buffer,
    readonly expectedSequence: number,
    readonly feePayer: PublicKey,
    readonly alias: string | undefined,
  ) {}

  static parse(raw: Buffer): PublishBody {
    let parsed: Record<string, unknown>;
    try {
      parsed = JSON.parse(raw.toString('utf8')) as Record<string, unknown>;
    } catch {
      throw uploadErrors.badRequest('the body is not JSON');
    }
    const { root, expected_sequence: expected, fee_payer: payer, alias } = parsed ?? {};
    if (!isCommitmentHex(root) || /^0+$/.test(root)) {
      throw uploadErrors.badRequest('"root" must be a version root commitment (64 hex digits)');
    }
    if (typeof expected !== 'number' || !Number.isSafeInteger(expected) || expected < 0) {
      throw uploadErrors.badRequest('"expected_sequence" must be a non-negative integer');
    }
    let feePayer: PublicKey;
    try {
      feePayer = new PublicKey(payer as string);
    } catch {
      throw uploadErrors.badRequest('"fee_payer" must be a base58 public key');
    }
    if (typeof payer !== 'string') throw uploadErrors.badRequest('"fee_payer" must be a string');
    if (alias !== undefined && alias !== null && typeof alias !== 'string') {
      throw uploadErrors.badRequest('"alias" must be a string');
    }
    return new PublishBody(Buffer.from(root, 'hex'), expected, feePayer, alias ?? undefined);
  }
}
