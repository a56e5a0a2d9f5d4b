import { Keypair } from '@solana/web3.js';
import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';

/** A Solana CLI keypair file: a JSON array of the 64 secret-key bytes. */
export function readKeypairFile(path: string): Keypair {
  let bytes: unknown;
  try {
    bytes = JSON.parse(readFileSync(path, 'utf8'));
  } catch (err) {
    throw new Error(`cannot read keypair ${path}: ${(err as Error).message}`);
  }
  if (
    !Array.isArray(bytes) ||
    bytes.length !== 64 ||
    !bytes.every((b) => Number.isInteger(b) && b >= 0 && b <= 255)
  ) {
    throw new Error(`keypair ${path} is not a JSON array of 64 bytes`);
  }
  try {
    return Keypair.fromSecretKey(Uint8Array.from(bytes as number[]));
  } catch (err) {
    throw new Error(`keypair ${path} is invalid: ${(err as Error).message}`);
  }
}

/** Reads the keypair at `path`, or creates it (mode 0600, written atomically) when missing. */
export function loadOrCreateKeypair(path: string): Keypair {
  if (existsSync(path)) return readKeypairFile(path);
  const keypair = Keypair.generate();
  const tmp = `${path}.${process.pid}.tmp`;
  writeFileSync(tmp, JSON.stringify(Array.from(keypair.secretKey)), { mode: 0o600 });
  renameSync(tmp, path);
  return keypair;
}
