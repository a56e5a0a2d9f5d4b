import { PublicKey } from '@solana/web3.js';
import { isPublicKey } from '../config/chain.config';

/**
 * A tape's label is the lowercase RFC 4648 base32 (no padding) of its 32-byte address: 52
 * characters, a valid DNS label, so `<label>.<suffix>` can name a site. Base58 addresses are
 * case-sensitive and cannot live in hostnames, which is why the label exists.
 */
const ALPHABET = 'abcdefghijklmnopqrstuvwxyz234567';
const LABEL_LENGTH = 52;

export function labelFromAddress(address: PublicKey | string): string {
  const bytes = (typeof address === 'string' ? new PublicKey(address) : address).toBytes();
  let bits = 0;
  let value = 0;
  let out = '';
  for (const byte of bytes) {
    value = (value << 8) | byte;
    bits += 8;
    while (bits >= 5) {
      out += ALPHABET[(value >>> (bits - 5)) & 31];
      bits -= 5;
    }
    value &= (1 << bits) - 1;
  }
  if (bits > 0) out += ALPHABET[(value << (5 - bits)) & 31];
  return out;
}

/** The tape address (base58) a label names, or null when the text is not a label. */
export function addressFromLabel(label: string): string | null {
  if (label.length !== LABEL_LENGTH) return null;
  const bytes = new Uint8Array(32);
  let bits = 0;
  let value = 0;
  let index = 0;
  for (const char of label) {
    const digit = ALPHABET.indexOf(char);
    if (digit < 0) return null;
    value = (value << 5) | digit;
    bits += 5;
    if (bits >= 8) {
      bytes[index++] = (value >>> (bits - 8)) & 0xff;
      bits -= 8;
    }
    value &= (1 << bits) - 1;
  }
  // 52 * 5 = 260 bits: the 4 bits left over must be zero, or two labels would name one tape.
  if (value !== 0) return null;
  return new PublicKey(bytes).toBase58();
}

/** A base58 tape address in canonical form, or null when the text is not one. */
export function parseAddress(text: string): string | null {
  return isPublicKey(text) ? text : null;
}
