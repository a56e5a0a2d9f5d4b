/**
 * The sections, in file order, of an SBF program the tape linker writes and the BPF loader takes:
 * what both the linker's spec (tools/sbf-link) and the committed program's spec (sbf-elf) expect.
 */
export const SBF_LOADER_SECTIONS: readonly string[] = [
  '',
  '.text',
  '.rodata',
  '.dynsym',
  '.dynstr',
  '.rel.dyn',
  '.dynamic',
  '.shstrtab',
];
