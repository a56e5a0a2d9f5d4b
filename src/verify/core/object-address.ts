import { base58Decode, base58Encode, hex, isHex64, unhex } from './bytes';

/** The tape and the commitment a `/object/{track}` address names (base58 of the 64 bytes). */
export function objectAddressParts(address: string): { tape: string; commitment: string } | null {
  const bytes = base58Decode(address);
  if (bytes === null || bytes.length !== 64) return null;
  return { tape: base58Encode(bytes.subarray(0, 32)), commitment: hex(bytes.subarray(32)) };
}

/** The `/object/{track}` address of a file of a tape: base58 of the 64 bytes tape || commitment. */
export function objectAddress(tape: string, commitment: string): string | null {
  const key = base58Decode(tape);
  if (key === null || key.length !== 32 || !isHex64(commitment)) return null;
  const bytes = new Uint8Array(64);
  bytes.set(key, 0);
  bytes.set(unhex(commitment), 32);
  return base58Encode(bytes);
}
