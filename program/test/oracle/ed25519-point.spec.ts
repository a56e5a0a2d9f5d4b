import { Keypair, PublicKey } from '@solana/web3.js';
import { createHash, randomBytes } from 'node:crypto';
import { isEd25519Point } from './ed25519-point';

const P = (1n << 255n) - 19n;

function littleEndian(n: bigint, xIsOdd = false): Buffer {
  const b = Buffer.alloc(32);
  let v = n;
  for (let i = 0; i < 32; i++) {
    b[i] = Number(v & 0xffn);
    v >>= 8n;
  }
  if (xIsOdd) b[31] |= 0x80;
  return b;
}

describe('isEd25519Point', () => {
  it('agrees with PublicKey.isOnCurve on random bytes and PDA-like hashes', () => {
    const inputs = Array.from({ length: 4000 }, (_, i) =>
      i % 2 ? randomBytes(32) : createHash('sha256').update(`seed ${i}`).digest(),
    );
    const disagreements = inputs.filter((b) => isEd25519Point(b) !== PublicKey.isOnCurve(b));
    expect(disagreements).toEqual([]);
    // Both answers occur (about half of all hashes are curve points).
    const points = inputs.filter((b) => isEd25519Point(b)).length;
    expect(points).toBeGreaterThan(1500);
    expect(points).toBeLessThan(2500);
  });

  it('accepts every real public key', () => {
    for (let i = 0; i < 200; i++)
      expect(isEd25519Point(Keypair.generate().publicKey.toBytes())).toBe(true);
  });

  it('agrees on the edge encodings: y = 0, ±1, p − 1, y ≥ p, with either sign bit', () => {
    const values = [0n, 1n, 2n, P - 2n, P - 1n, P, P + 1n, P + 18n, (1n << 255n) - 1n];
    for (const y of values) {
      for (const odd of [false, true]) {
        const bytes = littleEndian(y, odd);
        expect([y, odd, isEd25519Point(bytes)]).toEqual([y, odd, PublicKey.isOnCurve(bytes)]);
      }
    }
  });

  it('refuses input that is not 32 bytes', () => {
    expect(isEd25519Point(new Uint8Array(31))).toBe(false);
    expect(isEd25519Point(new Uint8Array(33))).toBe(false);
  });
});
