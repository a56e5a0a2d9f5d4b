import { Keypair, PublicKey } from '@solana/web3.js';
import { createHash } from 'node:crypto';
import { DEFAULT_TAPE_PROGRAM_ID } from '../../../src/chain/program-ids';
import * as ed25519Point from './ed25519-point';
import { ProgramAddressCache } from './program-address-cache';

const seedsFor = (i: number): Buffer[] => [
  Buffer.from('name'),
  createHash('sha256').update(`n${i}`).digest(),
];

/** Seeds whose bump-255 hash is a curve point, so their canonical bump is lower. */
function seedsWithOnCurveFirstCandidate(): { seeds: Buffer[]; onCurve: Buffer } {
  for (let i = 0; ; i++) {
    const seeds = seedsFor(i);
    const h = createHash('sha256');
    for (const s of seeds) h.update(s);
    const candidate = h
      .update(Buffer.from([255]))
      .update(DEFAULT_TAPE_PROGRAM_ID.toBuffer())
      .update('ProgramDerivedAddress')
      .digest();
    if (PublicKey.isOnCurve(candidate)) return { seeds, onCurve: candidate };
  }
}

describe('ProgramAddressCache', () => {
  afterEach(() => jest.restoreAllMocks());

  it('finds what findProgramAddressSync finds', () => {
    const cache = new ProgramAddressCache(DEFAULT_TAPE_PROGRAM_ID);
    for (let i = 0; i < 50; i++) {
      const [address, bump] = PublicKey.findProgramAddressSync(
        seedsFor(i),
        DEFAULT_TAPE_PROGRAM_ID,
      );
      expect(cache.find(seedsFor(i))).toEqual({ address, bump });
      expect(
        new ProgramAddressCache(DEFAULT_TAPE_PROGRAM_ID).bumpOf(seedsFor(i), address, false),
      ).toBe(bump);
    }
  });

  it('rejects any other address', () => {
    const cache = new ProgramAddressCache(DEFAULT_TAPE_PROGRAM_ID);
    const [other] = PublicKey.findProgramAddressSync(seedsFor(2), DEFAULT_TAPE_PROGRAM_ID);
    expect(cache.bumpOf(seedsFor(1), other, false)).toBeNull();
    expect(cache.bumpOf(seedsFor(1), Keypair.generate().publicKey, false)).toBeNull();
    // and again from memory
    expect(cache.bumpOf(seedsFor(1), other, true)).toBeNull();
  });

  it('answers from memory without curve tests once an address is known', () => {
    const cache = new ProgramAddressCache(DEFAULT_TAPE_PROGRAM_ID);
    const { address, bump } = cache.find(seedsFor(7));
    const onCurve = jest.spyOn(ed25519Point, 'isEd25519Point');
    expect(cache.bumpOf(seedsFor(7), address, true)).toBe(bump);
    expect(cache.find(seedsFor(7)).address).toEqual(address);
    expect(onCurve).not.toHaveBeenCalled();
  });

  it('does not remember an unverified match, so a curve-point hash cannot poison it', () => {
    const { seeds, onCurve } = seedsWithOnCurveFirstCandidate();
    const cache = new ProgramAddressCache(DEFAULT_TAPE_PROGRAM_ID);
    // A hostile client passes the bump-255 hash: matched, but not remembered.
    expect(cache.bumpOf(seeds, new PublicKey(onCurve), false)).toBe(255);
    const [canonical, bump] = PublicKey.findProgramAddressSync(seeds, DEFAULT_TAPE_PROGRAM_ID);
    expect(cache.bumpOf(seeds, canonical, true)).toBe(bump);
    expect(bump).toBeLessThan(255);
  });

  it('stays within its bound and keeps recently used addresses', () => {
    const cache = new ProgramAddressCache(DEFAULT_TAPE_PROGRAM_ID, 2);
    const first = cache.find(seedsFor(1));
    cache.find(seedsFor(2));
    cache.find(seedsFor(1)); // refresh 1: 2 is now the oldest
    cache.find(seedsFor(3));
    expect(cache.size).toBe(2);
    const onCurve = jest.spyOn(ed25519Point, 'isEd25519Point');
    expect(cache.find(seedsFor(1))).toEqual(first);
    expect(onCurve).not.toHaveBeenCalled();
    cache.find(seedsFor(2));
    expect(onCurve).toHaveBeenCalled();
  });
});
