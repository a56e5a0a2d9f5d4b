/**
 * Builds the tape program (program/src/*.c) into the committed SBPFv0 ELF, program/tape.so:
 * clang-19 compiles each file to a relocatable eBPF object, our linker (tools/sbf-link) makes
 * the shared object. The same sources and compiler give the same bytes every time.
 *
 *   node dist-tools/tools/build-program.js           rebuild program/tape.so
 *   node dist-tools/tools/build-program.js --check   rebuild in memory, fail if the committed file differs
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { linkSbf } from './sbf-link/link';
import { embeddedProgramVersion, formatProgramVersion } from '../src/chain/program-version';

const CLANG = 'clang-19';

/** Solana's 4 KiB stack frames, BPF v1 (what SBPFv0 executes), no libc, every warning an error. */
export const CLANG_FLAGS = [
  '-target',
  'bpf',
  '-mcpu=v1',
  '-O2',
  '-std=c11',
  '-ffreestanding',
  '-fno-builtin',
  '-fno-common',
  '-fno-ident',
  '-mllvm',
  '-bpf-stack-size=4096',
  '-Wall',
  '-Wextra',
  '-Wconversion',
  '-Werror',
];

export interface ProgramBuild {
  elf: Buffer;
  sha256: string;
  /** The version program/src/version.c embeds (major.minor.patch). */
  version: string;
  sources: string[];
}

function repoRoot(): string {
  let dir = __dirname;
  while (!existsSync(join(dir, 'program', 'src'))) {
    const parent = resolve(dir, '..');
    if (parent === dir) throw new Error('program/src not found above ' + __dirname);
    dir = parent;
  }
  return dir;
}

export function programPaths(root = repoRoot()) {
  return {
    root,
    sources: join(root, 'program', 'src'),
    include: join(root, 'program', 'include'),
    elf: join(root, 'program', 'tape.so'),
  };
}

function clangVersion(): string {
  try {
    return execFileSync(CLANG, ['--version'], { encoding: 'utf8' }).split('\n')[0];
  } catch {
    throw new Error(`${CLANG} not found: install it (apt-get install -y clang-19 llvm-19)`);
  }
}

/** Compiles and links the program; nothing is written to the repository. */
export function buildProgram(root = repoRoot()): ProgramBuild {
  const paths = programPaths(root);
  clangVersion();
  const sources = readdirSync(paths.sources)
    .filter((f) => f.endsWith('.c'))
    .sort();
  const work = mkdtempSync(join(tmpdir(), 'tape-program-'));
  try {
    const objects = sources.map((file) => {
      const out = join(work, file.replace(/\.c$/, '.o'));
      // Relative paths and a fixed working directory keep absolute paths out of the objects.
      execFileSync(CLANG, [...CLANG_FLAGS, '-Iinclude', '-c', join('src', file), '-o', out], {
        cwd: join(root, 'program'),
        stdio: ['ignore', 'inherit', 'inherit'],
      });
      return { name: file.replace(/\.c$/, '.o'), bytes: readFileSync(out) };
    });
    const elf = linkSbf(objects);
    // `tape network deploy` refuses to replace a versioned program with an unversioned build:
    // a build without its version would be undeployable over every later one.
    const version = embeddedProgramVersion(elf);
    if (!version) {
      throw new Error(
        'the linked program has no version: program/src/version.c must define tape_program_version as "tape-program-version=<major>.<minor>.<patch>"',
      );
    }
    return {
      elf,
      sha256: createHash('sha256').update(elf).digest('hex'),
      version: formatProgramVersion(version),
      sources,
    };
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

function main(): void {
  const check = process.argv.includes('--check');
  const paths = programPaths();
  const build = buildProgram(paths.root);
  const summary = `version ${build.version}, ${build.elf.length} bytes, sha256 ${build.sha256} (${clangVersion()})`;
  if (!check) {
    writeFileSync(paths.elf, build.elf);
    console.log(`program/tape.so: ${summary}`);
    return;
  }
  const committed = existsSync(paths.elf) ? readFileSync(paths.elf) : Buffer.alloc(0);
  if (!committed.equals(build.elf)) {
    const was = createHash('sha256').update(committed).digest('hex');
    console.error(
      `program/tape.so differs from a fresh build: committed ${committed.length} bytes sha256 ${was}, ` +
        `built ${summary}. Run npm run build:program and commit the ELF.`,
    );
    process.exit(1);
  }
  console.log(`program/tape.so matches a fresh build: ${summary}`);
}

if (require.main === module) {
  try {
    main();
  } catch (e) {
    console.error(`build-program: ${e instanceof Error ? e.message : String(e)}`);
    process.exit(1);
  }
}
