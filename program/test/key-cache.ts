import { PublicKey } from '@solana/web3.js';

const strings = new WeakMap<PublicKey, string>();
const raw = new WeakMap<PublicKey, Uint8Array>();

/**
 * web3.js keeps a PublicKey as a BN and converts it on every `toBase58`/`toBytes`; the
 * differential test does that millions of times on the same few dozen keys, so cache them.
 */
export function base58(key: PublicKey): string {
  let s = strings.get(key);
  if (s === undefined) strings.set(key, (s = key.toBase58()));
  return s;
}

export function keyBytes(key: PublicKey): Uint8Array {
  let b = raw.get(key);
  if (b === undefined) raw.set(key, (b = key.toBytes()));
  return b;
}

/**
 * Makes every PublicKey remember its base58 form. The native test ledger keys its accounts by
 * base58 and encodes the same few dozen keys for every instruction: in the differential test
 * that is a third of the oracle's time. Keys are immutable, so the answer cannot go stale.
 */
export function memoizePublicKeyBase58(): void {
  const original = PublicKey.prototype.toBase58;
  if ((original as { memoized?: boolean }).memoized) return;
  const memo = function (this: PublicKey): string {
    let s = strings.get(this);
    if (s === undefined) strings.set(this, (s = original.call(this)));
    return s;
  };
  (memo as { memoized?: boolean }).memoized = true;
  PublicKey.prototype.toBase58 = memo;
}
