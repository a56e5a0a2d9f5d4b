/** ELF `e_machine` values the Solana loaders accept: EM_BPF (SBPFv0–v2) and EM_SBF (v3 and later). */
const EM_BPF = 247;
const EM_SBF = 263;
const ET_DYN = 3;
const ELF_HEADER_SIZE = 64;

/**
 * Why `bytes` cannot be a Solana program, or null when its ELF header looks like one: a 64-bit
 * little-endian shared object for BPF/SBF. Only the header is checked; the loader verifies
 * the rest when the program is deployed.
 */
export function sbfElfProblem(bytes: Buffer): string | null {
  if (bytes.length < ELF_HEADER_SIZE || bytes.readUInt32BE(0) !== 0x7f454c46) {
    return 'not an ELF file';
  }
  if (bytes[4] !== 2 || bytes[5] !== 1) return 'not a 64-bit little-endian ELF';
  const machine = bytes.readUInt16LE(18);
  if (machine !== EM_BPF && machine !== EM_SBF) {
    return `an ELF for machine ${machine}, not BPF (${EM_BPF}) or SBF (${EM_SBF})`;
  }
  if (bytes.readUInt16LE(16) !== ET_DYN) return 'not a shared object (ELF type must be ET_DYN)';
  return null;
}

const SHT_NOBITS = 8;

export interface ElfSection {
  name: string;
  offset: number;
  size: number;
}

/**
 * The sections of a 64-bit little-endian ELF (names from its section-name table), or null when
 * its headers do not fit in `bytes`. Enough to find `.rodata` in a program read back from a
 * program data account (where the ELF is followed by zeros up to the account's length).
 */
export function sbfElfSections(bytes: Buffer): ElfSection[] | null {
  if (sbfElfProblem(bytes) !== null) return null;
  const shoff = Number(bytes.readBigUInt64LE(40));
  const shentsize = bytes.readUInt16LE(58);
  const shnum = bytes.readUInt16LE(60);
  const shstrndx = bytes.readUInt16LE(62);
  if (shentsize < 64 || shstrndx >= shnum || shoff + shnum * shentsize > bytes.length) {
    return null;
  }
  const raw = Array.from({ length: shnum }, (_, i) => {
    const at = shoff + i * shentsize;
    return {
      nameOffset: bytes.readUInt32LE(at),
      type: bytes.readUInt32LE(at + 4),
      offset: Number(bytes.readBigUInt64LE(at + 24)),
      size: Number(bytes.readBigUInt64LE(at + 32)),
    };
  });
  if (raw.some((s) => s.type !== SHT_NOBITS && s.offset + s.size > bytes.length)) return null;
  const names = raw[shstrndx];
  return raw.map((s) => {
    const start = names.offset + s.nameOffset;
    const end = bytes.indexOf(0, start);
    return {
      name: end < 0 || end > names.offset + names.size ? '' : bytes.toString('latin1', start, end),
      offset: s.offset,
      size: s.type === SHT_NOBITS ? 0 : s.size,
    };
  });
}

/**
 * How many bytes of `bytes` the ELF at its start occupies (its headers, program headers,
 * sections and section headers), or null when they do not fit: a deployed program's ELF
 * without the zeros its program data account adds.
 */
export function sbfElfLength(bytes: Buffer): number | null {
  const sections = sbfElfSections(bytes);
  if (!sections) return null;
  const phoff = Number(bytes.readBigUInt64LE(32));
  const phEnd = phoff + bytes.readUInt16LE(54) * bytes.readUInt16LE(56);
  const shEnd = Number(bytes.readBigUInt64LE(40)) + bytes.readUInt16LE(58) * bytes.readUInt16LE(60);
  const length = Math.max(ELF_HEADER_SIZE, phEnd, shEnd, ...sections.map((s) => s.offset + s.size));
  return length <= bytes.length ? length : null;
}
