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
