import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

/** The committed build of the tape program (docs/program.md, "The build"). */
export function tapeProgramElfPath(from = __dirname): string {
  let dir = from;
  for (;;) {
    const candidate = join(dir, 'program', 'tape.so');
    if (existsSync(candidate)) return candidate;
    const parent = dirname(dir);
    if (parent === dir) throw new Error(`program/tape.so not found above ${from}`);
    dir = parent;
  }
}

export function readTapeProgramElf(): Buffer {
  return readFileSync(tapeProgramElfPath());
}
