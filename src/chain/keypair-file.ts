import { Keypair } from '@solana/web3.js';
import { chmodSync, existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { makeDirectory } from '../config/directories';

/** Keypair files are Solana CLI format: a JSON array of the 64 secret-key bytes. */
export class KeypairFileError extends Error {}

export function readKeypair(path: string): Keypair {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    throw new KeypairFileError(
      code === 'ENOENT' ? `no keypair at ${path}` : `cannot read keypair ${path}: ${code ?? ''}`,
    );
  }
  let bytes: unknown;
  try {
    bytes = JSON.parse(text);
  } catch {
    throw new KeypairFileError(
      `${path} is not a keypair file (expected a JSON array of 64 numbers)`,
    );
  }
  if (
    !Array.isArray(bytes) ||
    bytes.length !== 64 ||
    !bytes.every((b) => Number.isInteger(b) && b >= 0 && b <= 255)
  ) {
    throw new KeypairFileError(
      `${path} is not a keypair file (expected a JSON array of 64 numbers)`,
    );
  }
  try {
    return Keypair.fromSecretKey(Uint8Array.from(bytes as number[]));
  } catch {
    throw new KeypairFileError(`${path} holds an invalid keypair`);
  }
}

/** Writes atomically with mode 0600; refuses to overwrite unless asked. */
export function writeKeypair(path: string, keypair: Keypair, overwrite = false): void {
  if (!overwrite && existsSync(path)) throw new KeypairFileError(`${path} already exists`);
  makeDirectory(dirname(path), 0o700);
  const tmp = `${path}.${process.pid}.tmp`;
  writeFileSync(tmp, JSON.stringify(Array.from(keypair.secretKey)), { mode: 0o600 });
  chmodSync(tmp, 0o600);
  renameSync(tmp, path);
}

export function readOrCreateKeypair(path: string): Keypair {
  if (existsSync(path)) return readKeypair(path);
  const keypair = Keypair.generate();
  try {
    writeKeypair(path, keypair);
  } catch (err) {
    // Another process created it first: use theirs.
    if (existsSync(path)) return readKeypair(path);
    throw err;
  }
  return keypair;
}
