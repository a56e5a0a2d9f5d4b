/** ELF64 numbers the linker reads and writes (System V gABI, plus the eBPF and SBF specifics). */

export const ELF_MAGIC = [0x7f, 0x45, 0x4c, 0x46] as const;
export const ELFCLASS32 = 1;
export const ELFCLASS64 = 2;
export const ELFDATA2LSB = 1;
export const ELFDATA2MSB = 2;
export const EV_CURRENT = 1;
export const ELFOSABI_NONE = 0;

export const ET_REL = 1;
export const ET_DYN = 3;
export const EM_BPF = 247;

export const EHDR_SIZE = 64;
export const PHDR_SIZE = 56;
export const SHDR_SIZE = 64;
export const SYM_SIZE = 24;
export const REL_SIZE = 16;
export const RELA_SIZE = 24;
export const DYN_SIZE = 16;

export const SHT_NULL = 0;
export const SHT_PROGBITS = 1;
export const SHT_SYMTAB = 2;
export const SHT_STRTAB = 3;
export const SHT_RELA = 4;
export const SHT_DYNAMIC = 6;
export const SHT_NOBITS = 8;
export const SHT_REL = 9;
export const SHT_DYNSYM = 11;

export const SHF_WRITE = 0x1;
export const SHF_ALLOC = 0x2;
export const SHF_EXECINSTR = 0x4;

export const SHN_UNDEF = 0;
export const SHN_LORESERVE = 0xff00;
export const SHN_ABS = 0xfff1;
export const SHN_COMMON = 0xfff2;
export const SHN_XINDEX = 0xffff;

export const STB_LOCAL = 0;
export const STB_GLOBAL = 1;
export const STB_WEAK = 2;

export const STT_NOTYPE = 0;
export const STT_OBJECT = 1;
export const STT_FUNC = 2;
export const STT_SECTION = 3;
export const STT_FILE = 4;
export const STT_COMMON = 5;

export const PT_LOAD = 1;
export const PT_DYNAMIC = 2;
export const PF_X = 0x1;
export const PF_W = 0x2;
export const PF_R = 0x4;

export const DT_NULL = 0;
export const DT_STRTAB = 5;
export const DT_SYMTAB = 6;
export const DT_STRSZ = 10;
export const DT_SYMENT = 11;
export const DT_REL = 17;
export const DT_RELSZ = 18;
export const DT_RELENT = 19;

/** eBPF relocation types as clang emits them in relocatable objects. */
export const R_BPF_NONE = 0;
export const R_BPF_64_64 = 1;
export const R_BPF_64_ABS64 = 2;
export const R_BPF_64_ABS32 = 3;
export const R_BPF_64_NODYLD32 = 4;
export const R_BPF_64_32 = 10;
/** The relocation the SBPF loader applies for addresses inside the program (x86's number). */
export const R_BPF_64_RELATIVE = 8;

const RELOCATION_NAMES: Record<number, string> = {
  [R_BPF_NONE]: 'R_BPF_NONE',
  [R_BPF_64_64]: 'R_BPF_64_64',
  [R_BPF_64_ABS64]: 'R_BPF_64_ABS64',
  [R_BPF_64_ABS32]: 'R_BPF_64_ABS32',
  [R_BPF_64_NODYLD32]: 'R_BPF_64_NODYLD32',
  [R_BPF_64_RELATIVE]: 'R_BPF_64_RELATIVE',
  [R_BPF_64_32]: 'R_BPF_64_32',
};

export function relocationName(type: number): string {
  return RELOCATION_NAMES[type] ?? `relocation type ${type}`;
}

/** eBPF instruction encoding. */
export const INSN_SIZE = 8;
export const OPC_LDDW = 0x18;
export const OPC_CALL = 0x85;
export const OPC_CALLX = 0x8d;
