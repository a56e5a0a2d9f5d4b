import { PublicKey } from '@solana/web3.js';
import { createHash } from 'node:crypto';
import { isEd25519Point } from '../programs/ed25519-point';

/** Solana's limits on `create_program_address` seeds. */
const MAX_SEEDS = 16;
const MAX_SEED_LENGTH = 32;
const PDA_MARKER = Buffer.from('ProgramDerivedAddress');

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
    const address = createProgramAddress(seeds, programId);
    if (this.memo.size >= MAX_MEMO) this.memo.delete(this.memo.keys().next().value as string);
    this.memo.set(id, address);
    return address;
  }
}

function memoKey(seeds: Uint8Array[], programId: PublicKey): string {
  const parts = seeds.map((s) => Buffer.from(s.buffer, s.byteOffset, s.byteLength).toString('hex'));
  return `${programKey(programId)}:${parts.join('.')}`;
}

/**
 * Solana's `create_program_address`: sha256(seeds ‖ program id ‖ "ProgramDerivedAddress"),
 * refused (null) when a seed is too long, there are too many, or the hash is a curve point.
 * Same answers as `PublicKey.createProgramAddressSync`, with the faster curve test.
 */
export function createProgramAddress(seeds: Uint8Array[], programId: PublicKey): string | null {
  if (seeds.length > MAX_SEEDS || seeds.some((s) => s.length > MAX_SEED_LENGTH)) return null;
  const hash = createHash('sha256');
  for (const seed of seeds) hash.update(seed);
  const address = hash.update(programId.toBuffer()).update(PDA_MARKER).digest();
  return isEd25519Point(address) ? null : address.toString('base64');
}

const programKeys = new WeakMap<PublicKey, string>();

function programKey(programId: PublicKey): string {
  let key = programKeys.get(programId);
  if (key === undefined) {
    key = programId.toBuffer().toString('hex');
    programKeys.set(programId, key);
  }
  return key;
}
