import { PublicKey } from '@solana/web3.js';
import { createHash } from 'node:crypto';

/** Solana's limit on the seed of a seeded address. */
export const MAX_SEED_LENGTH = 32;

/**
 * The address System CreateAccountWithSeed creates: sha256(base || seed || owner), as
 * `PublicKey.createWithSeed` computes it (which is async only for historical reasons). Such an
 * account is created by the base's signature alone, so a command that crashed finds it again
 * from the same base and seed.
 */
export function addressWithSeed(base: PublicKey, seed: string, owner: PublicKey): PublicKey {
  if (Buffer.byteLength(seed, 'utf8') > MAX_SEED_LENGTH) {
    throw new RangeError(`seed longer than ${MAX_SEED_LENGTH} bytes: ${seed}`);
  }
  return new PublicKey(
    createHash('sha256')
      .update(base.toBuffer())
      .update(seed, 'utf8')
      .update(owner.toBuffer())
      .digest(),
  );
}
