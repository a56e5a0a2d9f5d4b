import { PublicKey } from '@solana/web3.js';
import { createHash } from 'node:crypto';
import { isEd25519Point } from './ed25519-point';

const PDA_MARKER = Buffer.from('ProgramDerivedAddress');
/** Solana's `find_program_address` tries bumps 255 down to 1. */
const HIGHEST_BUMP = 255;
const LOWEST_BUMP = 1;

export interface ProgramAddress {
  address: PublicKey;
  bump: number;
}

/**
 * Program-derived addresses of one program, remembered in a bounded map.
 *
 * Deriving a PDA costs a curve test per bump tried (is this hash an ed25519 point?), the most
 * expensive step of an instruction; the differential test runs hundreds of thousands of them.
 * So addresses are remembered, and checking an address the client passed (`bumpOf`) stops at
 * the first hash equal to it, skipping the curve test of the match itself: it needs one curve
 * test on average where a full derivation needs two.
 */
export class ProgramAddressCache {
  // Two generations instead of a strict LRU: a hit in the old one moves to the young one, and
  // when the young one is full it becomes the old one. Lookups never delete, which keeps them
  // cheap (Map delete-and-reinsert on every hit cost more than the hashing it saves).
  private young = new Map<string, ProgramAddress>();
  private old = new Map<string, ProgramAddress>();
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
      if (!isEd25519Point(candidate)) {
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
      if (!isEd25519Point(candidate)) {
        this.remember(key, { address: new PublicKey(candidate), bump });
        return null;
      }
    }
    return null;
  }

  /**
   * Remembers `address` as the PDA of `seeds` once the runtime has proven it off the curve
   * (it let the program sign for it in `invokeSigned`).
   */
  confirm(seeds: Buffer[], address: PublicKey, bump: number): void {
    this.remember(memoKey(seeds), { address, bump });
  }

  /** Addresses remembered (at most `maxEntries`). */
  get size(): number {
    return this.young.size + this.old.size;
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
    const young = this.young.get(key);
    if (young) return young;
    const old = this.old.get(key);
    if (old) this.remember(key, old);
    return old;
  }

  private remember(key: string, value: ProgramAddress): ProgramAddress {
    if (this.young.size >= Math.ceil(this.maxEntries / 2)) {
      this.old = this.young;
      this.young = new Map();
    }
    this.young.set(key, value);
    return value;
  }
}

/** One char per byte, each seed prefixed by its length, so distinct seed lists never collide. */
function memoKey(seeds: Buffer[]): string {
  let key = '';
  for (const seed of seeds) key += String.fromCharCode(seed.length) + seed.toString('latin1');
  return key;
}
