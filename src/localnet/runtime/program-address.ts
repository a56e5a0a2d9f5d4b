import { PublicKey } from '@solana/web3.js';

const MAX_MEMO = 16_384;

/**
 * `create_program_address` for `invokeSigned`, remembered: the same PDA often signs again
 * (a tape, a payer PDA), and the curve test inside costs about 100 µs. Results, including
 * "these seeds give no valid address", are pure functions of the inputs, so caching is safe.
 */
export class ProgramAddressDeriver {
  private readonly memo = new Map<string, string | null>();

  /** The address's bytes as base64, or null when the seeds are invalid or land on the curve. */
  derive(seeds: Uint8Array[], programId: PublicKey): string | null {
    const id = memoKey(seeds, programId);
    const known = this.memo.get(id);
    if (known !== undefined) return known;
    let address: string | null;
    try {
      address = PublicKey.createProgramAddressSync(seeds, programId).toBuffer().toString('base64');
    } catch {
      address = null;
    }
    if (this.memo.size >= MAX_MEMO) this.memo.delete(this.memo.keys().next().value as string);
    this.memo.set(id, address);
    return address;
  }
}

function memoKey(seeds: Uint8Array[], programId: PublicKey): string {
  const parts = seeds.map((s) => Buffer.from(s.buffer, s.byteOffset, s.byteLength).toString('hex'));
  return `${programId.toBase58()}:${parts.join('.')}`;
}
