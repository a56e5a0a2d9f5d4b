import { PublicKey } from '@solana/web3.js';
import { CliError } from '../cli-error';
import { printable } from './size-parser';

/** A base58 public key, exactly as written (no padding, no stray characters). */
export function parsePublicKey(text: string, what: string): PublicKey {
  const trimmed = typeof text === 'string' ? text.trim() : '';
  if (/^[1-9A-HJ-NP-Za-km-z]{32,44}$/.test(trimmed)) {
    try {
      const key = new PublicKey(trimmed);
      if (key.toBase58() === trimmed) return key;
    } catch {
      // falls through to the error below
    }
  }
  throw new CliError(`bad ${what} '${printable(text)}': expected a base58 public key`);
}
