import { PublicKey } from '@solana/web3.js';
import { createHash } from 'node:crypto';

const PDA_MARKER = Buffer.from('ProgramDerivedAddress');
/** Solana's `find_program_address` tries bumps 255 down to 1. */
const HIGHEST_BUMP = 255;
const LOWEST_BUMP = 1;

export interface ProgramAddress {
  address: PublicKey;
  bump: number;
}

/**
 * Program-derived addresses of one program, remembered in a bounded LRU map.
 *
 * Deriving a PDA costs about 80 µs per bump tried, almost all of it the ed25519 "is this hash a
 * curve point" test; the local network must confirm thousands of SetName instructions a second.
 * So addresses are remembered, and checking an address the client passed (`bumpOf`) stops at
 * the first hash equal to it, skipping the curve test of the match itself: it needs one curve
 * test on average where a full derivation needs two.
 */
export class ProgramAddressCache {
  private readonly memo = new Map<string, ProgramAddress>();
  private readonly programIdBytes: Buffer;

  constructor(
    readonly programId: PublicKey,
    private readonly maxEntries = 16_384,
  ) {
    this.programIdBytes = programId.toBuffer();
  }

  /** The canonical address and bump of `seeds`, as `PublicKey.findProgramAddressSync` finds them. */
  find(seeds: Buffer[]): ProgramAddress {
    const key = memoKey(seeds);
    const known = this.recall(key);
    if (known) return known;
    for (let bump = HIGHEST_BUMP; bump >= LOWEST_BUMP; bump--) {
      const candidate = this.hash(seeds, bump);
      if (!PublicKey.isOnCurve(candidate)) {
        return this.remember(key, { address: new PublicKey(candidate), bump });
      }
    }
    throw new Error('no viable bump seed');
  }

  /**
   * The canonical bump when `address` is the PDA of `seeds`, else null.
   *
   * A match is remembered only when `knownOffCurve` says the address is certainly off the curve:
   * an account this program (or another, for ATAs) already owns there could only have been
   * created by the runtime's checked `invokeSigned`. An unverified match is not remembered, so a
   * hash that happens to be a curve point can never poison the cache; creating an account there
   * fails in the runtime's own PDA check.
   */
  bumpOf(seeds: Buffer[], address: PublicKey, knownOffCurve: boolean): number | null {
    const key = memoKey(seeds);
    const known = this.recall(key);
    if (known) return known.address.equals(address) ? known.bump : null;
    const target = address.toBuffer();
    for (let bump = HIGHEST_BUMP; bump >= LOWEST_BUMP; bump--) {
      const candidate = this.hash(seeds, bump);
      if (candidate.equals(target)) {
        if (knownOffCurve) this.remember(key, { address, bump });
        return bump;
      }
      if (!PublicKey.isOnCurve(candidate)) {
        this.remember(key, { address: new PublicKey(candidate), bump });
        return null;
      }
    }
    return null;
  }

  get size(): number {
    return this.memo.size;
  }

  private hash(seeds: Buffer[], bump: number): Buffer {
    const h = createHash('sha256');
    for (const seed of seeds) h.update(seed);
    return h
      .update(Buffer.from([bump]))
      .update(this.programIdBytes)
      .update(PDA_MARKER)
      .digest();
  }

  private recall(key: string): ProgramAddress | undefined {
    const hit = this.memo.get(key);
    if (hit) {
      // Refresh: Map iteration order is insertion order, so the first key is the least recent.
      this.memo.delete(key);
      this.memo.set(key, hit);
    }
    return hit;
  }

  private remember(key: string, value: ProgramAddress): ProgramAddress {
    this.memo.set(key, value);
    if (this.memo.size > this.maxEntries) {
      const oldest = this.memo.keys().next().value;
      if (oldest !== undefined) this.memo.delete(oldest);
    }
    return value;
  }
}

function memoKey(seeds: Buffer[]): string {
  return seeds.map((s) => s.toString('hex')).join('.');
}
