import { PublicKey } from '@solana/web3.js';

const LOG_PREFIX = 'Program log: ';
const INVOKE = /^Program (\S+) invoke \[(\d+)\]$/;
const EXIT = /^Program \S+ (success|failed: .*)$/;
const RUNTIME = /^Program (\S+ consumed \d+ of \d+ compute units|consumption: .*|return: .*)$/;

/**
 * The log messages `programId` itself wrote in a transaction's logs, without the "Program log: "
 * prefix: lines inside its top-level frame, not those of programs it invokes (the SPL Token
 * program logs "Instruction: Transfer") nor the runtime's invoke, exit and compute-unit lines.
 * Any other line in the frame (a "Program data:" line, a runtime complaint) is kept as it is.
 */
export function ownLogs(lines: string[], programId: PublicKey): string[] {
  const id = programId.toBase58();
  const own: string[] = [];
  let depth = 0;
  let inside = false;
  for (const line of lines) {
    if (line.startsWith(LOG_PREFIX)) {
      if (inside && depth === 1) own.push(line.slice(LOG_PREFIX.length));
      continue;
    }
    const invoke = INVOKE.exec(line);
    if (invoke) {
      depth = Number(invoke[2]);
      if (depth === 1) inside = invoke[1] === id;
      continue;
    }
    if (EXIT.test(line)) {
      depth -= 1;
      continue;
    }
    if (RUNTIME.test(line)) continue;
    if (inside && depth === 1) own.push(line);
  }
  return own;
}
