import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export const CLANG = 'clang-19';

/** BPF v1 (what SBPFv0 executes), no libc, Solana's 4 KiB stack frames. */
const TEST_PROGRAM_FLAGS = [
  '-target',
  'bpf',
  '-mcpu=v1',
  '-O2',
  '-ffreestanding',
  '-fno-builtin',
  '-mllvm',
  '-bpf-stack-size=4096',
];

/**
 * Compiles one C source of a test program into a relocatable eBPF object in `dir`, ready for
 * linkSbf (program/tape.so is built with stricter flags by tools/build-program.ts).
 */
export function compileSbfObject(
  dir: string,
  name: string,
  source: string,
): { name: string; bytes: Buffer } {
  const c = join(dir, `${name}.c`);
  const o = join(dir, `${name}.o`);
  writeFileSync(c, source);
  execFileSync(CLANG, [...TEST_PROGRAM_FLAGS, '-c', c, '-o', o], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  return { name: `${name}.o`, bytes: readFileSync(o) };
}
