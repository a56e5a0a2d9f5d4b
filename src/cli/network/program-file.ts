import { readFileSync } from 'node:fs';
import { sbfElfProblem } from '../../chain/sbf-elf';
import { CliError } from '../cli-error';

/** An SBF program from disk (`--program`, or the committed program/tape.so), checked to be one. */
export function readProgramFile(path: string): Buffer {
  let bytes: Buffer;
  try {
    bytes = readFileSync(path);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    throw new CliError(
      code === 'ENOENT' ? `no program at ${path}` : `cannot read ${path}: ${code ?? ''}`,
    );
  }
  const problem = sbfElfProblem(bytes);
  if (problem) throw new CliError(`${path} is not a Solana program: ${problem}`);
  return bytes;
}
