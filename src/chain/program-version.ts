import { sbfElfSections } from './sbf-elf';

/**
 * A build's version, embedded by program/src/version.c as the string
 * `tape-program-version=<major>.<minor>.<patch>` in the ELF's `.rodata`. It travels with the
 * bytes: a program deployed through the BPF Upgradeable Loader keeps the whole ELF in its
 * program data account, so a deployed program's version is read back from the chain.
 */
export interface ProgramVersion {
  major: number;
  minor: number;
  patch: number;
}

export const PROGRAM_VERSION_MARKER = 'tape-program-version=';
const VERSION_PATTERN = /^(\d{1,9})\.(\d{1,9})\.(\d{1,9})$/;
/** Longer than any version the pattern accepts: a marker without its NUL is not read further. */
const MAX_VERSION_LENGTH = 32;

export function parseProgramVersion(text: string): ProgramVersion | null {
  const m = VERSION_PATTERN.exec(text);
  return m ? { major: Number(m[1]), minor: Number(m[2]), patch: Number(m[3]) } : null;
}

export function formatProgramVersion(v: ProgramVersion): string {
  return `${v.major}.${v.minor}.${v.patch}`;
}

/** The version as text, null for none (JSON output). */
export function programVersionText(v: ProgramVersion | null): string | null {
  return v ? formatProgramVersion(v) : null;
}

/** Negative when `a` is older than `b`, 0 when equal, positive when newer. */
export function compareProgramVersions(a: ProgramVersion, b: ProgramVersion): number {
  return a.major - b.major || a.minor - b.minor || a.patch - b.patch;
}

/**
 * The version embedded in `elf` (a file, or a program data account's bytes after its header),
 * or null when it has none: builds from before the marker existed, other programs, or a
 * marker that is not a well-formed version (which proves nothing about age).
 */
export function embeddedProgramVersion(elf: Buffer): ProgramVersion | null {
  const rodata = sbfElfSections(elf)?.find((s) => s.name === '.rodata');
  if (!rodata) return null;
  const data = elf.subarray(rodata.offset, rodata.offset + rodata.size);
  const at = data.indexOf(PROGRAM_VERSION_MARKER, 0, 'latin1');
  if (at < 0) return null;
  const start = at + PROGRAM_VERSION_MARKER.length;
  const end = data.indexOf(0, start);
  if (end < 0 || end - start > MAX_VERSION_LENGTH) return null;
  return parseProgramVersion(data.toString('latin1', start, end));
}
