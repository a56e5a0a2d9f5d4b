/**
 * Test support: assembles small ELF64 relocatable eBPF objects from a description (sections,
 * symbols, relocations), a few eBPF instruction encoders, and a reader for the linker's output.
 */
import {
  ELFCLASS64,
  ELFDATA2LSB,
  EM_BPF,
  ET_REL,
  SHF_ALLOC,
  SHF_EXECINSTR,
  SHN_ABS,
  SHN_COMMON,
  SHT_PROGBITS,
  SHT_REL,
  SHT_STRTAB,
  SHT_SYMTAB,
  SHT_NOBITS,
  STB_GLOBAL,
  STB_LOCAL,
  STB_WEAK,
  STT_FILE,
  STT_FUNC,
  STT_NOTYPE,
  STT_OBJECT,
  STT_SECTION,
} from './elf-constants';

export interface SectionSpec {
  readonly name: string;
  readonly type?: number;
  /** Defaults: SHF_ALLOC | SHF_EXECINSTR for names starting with `.text`, SHF_ALLOC otherwise. */
  readonly flags?: number;
  readonly align?: number;
  readonly entsize?: number;
  readonly data?: Uint8Array | readonly number[];
  /** Size of an SHT_NOBITS section. */
  readonly size?: number;
}

export interface SymbolSpec {
  readonly name: string;
  /** A section name, or 'UND' (default), 'ABS', 'COMMON'. */
  readonly section?: string;
  readonly value?: number;
  readonly size?: number;
  readonly bind?: 'local' | 'global' | 'weak';
  readonly type?: 'notype' | 'object' | 'func' | 'file';
}

export interface RelocationSpec {
  /** The section patched. */
  readonly section: string;
  readonly offset: number;
  readonly type: number;
  /** A symbol name, or a section name (then a section symbol is used). */
  readonly symbol: string;
}

export interface ObjectSpec {
  readonly sections: readonly SectionSpec[];
  readonly symbols?: readonly SymbolSpec[];
  readonly relocations?: readonly RelocationSpec[];
  /** Header overrides, to build objects the linker must refuse. */
  readonly header?: {
    readonly elfClass?: number;
    readonly data?: number;
    readonly type?: number;
    readonly machine?: number;
  };
}

const BIND = { local: STB_LOCAL, global: STB_GLOBAL, weak: STB_WEAK } as const;
const TYPE = { notype: STT_NOTYPE, object: STT_OBJECT, func: STT_FUNC, file: STT_FILE } as const;

class Strings {
  private readonly chunks: Buffer[] = [Buffer.alloc(1)];
  private length = 1;
  add(value: string): number {
    if (value === '') return 0;
    const offset = this.length;
    const bytes = Buffer.from(`${value}\0`, 'latin1');
    this.chunks.push(bytes);
    this.length += bytes.length;
    return offset;
  }
  bytes(): Buffer {
    return Buffer.concat(this.chunks);
  }
}

interface BuiltSection {
  name: string;
  type: number;
  flags: number;
  align: number;
  entsize: number;
  link: number;
  info: number;
  data: Buffer;
  size: number;
}

/** Builds the bytes of a relocatable object as `clang -target bpf -c` lays them out. */
export function buildObject(spec: ObjectSpec): Uint8Array {
  const sections: BuiltSection[] = spec.sections.map((s) => {
    const type = s.type ?? SHT_PROGBITS;
    const data = Buffer.from(s.data ?? []);
    return {
      name: s.name,
      type,
      flags: s.flags ?? (s.name.startsWith('.text') ? SHF_ALLOC | SHF_EXECINSTR : SHF_ALLOC),
      align: s.align ?? 8,
      entsize: s.entsize ?? 0,
      link: 0,
      info: 0,
      data: type === SHT_NOBITS ? Buffer.alloc(0) : data,
      size: type === SHT_NOBITS ? (s.size ?? 0) : data.length,
    };
  });
  // Header index of user section i is i + 1.
  const sectionIndex = (name: string): number => {
    const i = sections.findIndex((s) => s.name === name);
    if (i < 0) throw new Error(`object spec: no section ${name}`);
    return i + 1;
  };

  // Symbols: null, locals (explicit, then section symbols), then globals.
  const strtab = new Strings();
  interface Sym {
    name: string;
    info: number;
    shndx: number;
    value: number;
    size: number;
  }
  const explicit = spec.symbols ?? [];
  const shndxOf = (section: string | undefined): number => {
    if (section === undefined || section === 'UND') return 0;
    if (section === 'ABS') return SHN_ABS;
    if (section === 'COMMON') return SHN_COMMON;
    return sectionIndex(section);
  };
  const toSym = (s: SymbolSpec): Sym => ({
    name: s.name,
    info: (BIND[s.bind ?? 'global'] << 4) | TYPE[s.type ?? 'notype'],
    shndx: shndxOf(s.section),
    value: s.value ?? 0,
    size: s.size ?? 0,
  });
  const locals: Sym[] = explicit.filter((s) => s.bind === 'local').map(toSym);
  const sectionSymbols = new Map<string, number>();
  for (const r of spec.relocations ?? []) {
    const isSymbol = explicit.some((s) => s.name === r.symbol);
    if (!isSymbol && !sectionSymbols.has(r.symbol)) {
      sectionSymbols.set(r.symbol, -1);
      locals.push({
        name: '',
        info: (STB_LOCAL << 4) | STT_SECTION,
        shndx: sectionIndex(r.symbol),
        value: 0,
        size: 0,
      });
    }
  }
  const globals = explicit.filter((s) => s.bind !== 'local').map(toSym);
  const symbols: Sym[] = [
    { name: '', info: 0, shndx: 0, value: 0, size: 0 },
    ...locals,
    ...globals,
  ];
  const symbolIndex = (name: string): number => {
    const byName = symbols.findIndex((s) => s.name === name && s.name !== '');
    if (byName >= 0) return byName;
    const shndx = sectionIndex(name);
    return symbols.findIndex((s) => (s.info & 0xf) === STT_SECTION && s.shndx === shndx);
  };
  const symtabData = Buffer.alloc(24 * symbols.length);
  symbols.forEach((s, i) => {
    symtabData.writeUInt32LE(strtab.add(s.name), i * 24);
    symtabData[i * 24 + 4] = s.info;
    symtabData.writeUInt16LE(s.shndx, i * 24 + 6);
    symtabData.writeBigUInt64LE(BigInt(s.value), i * 24 + 8);
    symtabData.writeBigUInt64LE(BigInt(s.size), i * 24 + 16);
  });

  // Relocation sections, one per patched section, in section order.
  const symtabIndex = sections.length + 1 + countRelSections(spec);
  const relSections: BuiltSection[] = [];
  for (const target of sections) {
    const entries = (spec.relocations ?? []).filter((r) => r.section === target.name);
    if (entries.length === 0) continue;
    const data = Buffer.alloc(16 * entries.length);
    entries.forEach((r, i) => {
      data.writeBigUInt64LE(BigInt(r.offset), i * 16);
      data.writeBigUInt64LE((BigInt(symbolIndex(r.symbol)) << 32n) | BigInt(r.type), i * 16 + 8);
    });
    relSections.push({
      name: `.rel${target.name}`,
      type: SHT_REL,
      flags: 0x40,
      align: 8,
      entsize: 16,
      link: symtabIndex,
      info: sectionIndex(target.name),
      data,
      size: data.length,
    });
  }
  const strtabData = strtab.bytes();
  const all: BuiltSection[] = [
    ...sections,
    ...relSections,
    {
      name: '.symtab',
      type: SHT_SYMTAB,
      flags: 0,
      align: 8,
      entsize: 24,
      link: symtabIndex + 1,
      info: 1 + locals.length,
      data: symtabData,
      size: symtabData.length,
    },
    {
      name: '.strtab',
      type: SHT_STRTAB,
      flags: 0,
      align: 1,
      entsize: 0,
      link: 0,
      info: 0,
      data: strtabData,
      size: strtabData.length,
    },
  ];
  const shstrtab = new Strings();
  const nameOffsets = all.map((s) => shstrtab.add(s.name));
  const shstrtabNameOffset = shstrtab.add('.shstrtab');
  const shstrtabData = shstrtab.bytes();
  all.push({
    name: '.shstrtab',
    type: SHT_STRTAB,
    flags: 0,
    align: 1,
    entsize: 0,
    link: 0,
    info: 0,
    data: shstrtabData,
    size: shstrtabData.length,
  });
  nameOffsets.push(shstrtabNameOffset);

  let offset = 64;
  const offsets = all.map((s) => {
    offset = Math.ceil(offset / Math.max(1, s.align)) * Math.max(1, s.align);
    const at = offset;
    offset += s.data.length;
    return at;
  });
  const shoff = Math.ceil(offset / 8) * 8;
  const out = Buffer.alloc(shoff + 64 * (all.length + 1));
  out.set([0x7f, 0x45, 0x4c, 0x46], 0);
  out[4] = spec.header?.elfClass ?? ELFCLASS64;
  out[5] = spec.header?.data ?? ELFDATA2LSB;
  out[6] = 1;
  out.writeUInt16LE(spec.header?.type ?? ET_REL, 0x10);
  out.writeUInt16LE(spec.header?.machine ?? EM_BPF, 0x12);
  out.writeUInt32LE(1, 0x14);
  out.writeBigUInt64LE(BigInt(shoff), 0x28);
  out.writeUInt16LE(64, 0x34);
  out.writeUInt16LE(64, 0x3a);
  out.writeUInt16LE(all.length + 1, 0x3c);
  out.writeUInt16LE(all.length, 0x3e);
  all.forEach((s, i) => {
    out.set(s.data, offsets[i]);
    const at = shoff + 64 * (i + 1);
    out.writeUInt32LE(nameOffsets[i], at);
    out.writeUInt32LE(s.type, at + 4);
    out.writeBigUInt64LE(BigInt(s.flags), at + 8);
    out.writeBigUInt64LE(BigInt(offsets[i]), at + 0x18);
    out.writeBigUInt64LE(BigInt(s.size), at + 0x20);
    out.writeUInt32LE(s.link, at + 0x28);
    out.writeUInt32LE(s.info, at + 0x2c);
    out.writeBigUInt64LE(BigInt(s.align), at + 0x30);
    out.writeBigUInt64LE(BigInt(s.entsize), at + 0x38);
  });
  return new Uint8Array(out);
}

function countRelSections(spec: ObjectSpec): number {
  return new Set((spec.relocations ?? []).map((r) => r.section)).size;
}

// ---- eBPF instruction encoders ----

function insn(opcode: number, dst: number, src: number, off: number, imm: number): Buffer {
  const b = Buffer.alloc(8);
  b[0] = opcode;
  b[1] = (src << 4) | dst;
  b.writeInt16LE(off, 2);
  b.writeInt32LE(imm, 4);
  return b;
}

export const ebpf = {
  /** `lddw dst, imm` (16 bytes; only the low 32 bits are set, as clang leaves relocated ones). */
  lddw: (dst: number, imm = 0): Buffer =>
    Buffer.concat([insn(0x18, dst, 0, 0, imm), insn(0, 0, 0, 0, 0)]),
  /** `call imm` with src = 1 as clang emits it (`call -1` for relocated calls). */
  call: (imm = -1, src = 1): Buffer => insn(0x85, 0, src, 0, imm),
  callx: (dst: number): Buffer => insn(0x8d, dst, 0, 0, 0),
  mov64: (dst: number, imm: number): Buffer => insn(0xb7, dst, 0, 0, imm),
  ldxdw: (dst: number, src: number, off: number): Buffer => insn(0x79, dst, src, off, 0),
  exit: (): Buffer => insn(0x95, 0, 0, 0, 0),
  code: (...instructions: Buffer[]): Buffer => Buffer.concat(instructions),
};

// ---- reading the linker's output ----

export interface OutputSection {
  readonly name: string;
  readonly type: number;
  readonly flags: number;
  readonly addr: number;
  readonly offset: number;
  readonly size: number;
  readonly link: number;
  readonly info: number;
  readonly align: number;
  readonly entsize: number;
}

export interface OutputProgramHeader {
  readonly type: number;
  readonly flags: number;
  readonly offset: number;
  readonly vaddr: number;
  readonly paddr: number;
  readonly filesz: number;
  readonly memsz: number;
}

export interface SharedObjectView {
  readonly bytes: Buffer;
  readonly entry: number;
  readonly programHeaders: OutputProgramHeader[];
  readonly sections: OutputSection[];
  section(name: string): OutputSection;
  /** The section's bytes. */
  data(name: string): Buffer;
  dynamic(): [tag: number, value: number][];
  dynsym(): { name: string; info: number; shndx: number; value: number; size: number }[];
  relocations(): { offset: number; type: number; symbol: number }[];
}

export function readSharedObject(input: Uint8Array): SharedObjectView {
  const bytes = Buffer.from(input);
  const phoff = Number(bytes.readBigUInt64LE(0x20));
  const shoff = Number(bytes.readBigUInt64LE(0x28));
  const phnum = bytes.readUInt16LE(0x38);
  const shnum = bytes.readUInt16LE(0x3c);
  const shstrndx = bytes.readUInt16LE(0x3e);
  const u64 = (at: number): number => Number(bytes.readBigUInt64LE(at));
  const programHeaders = Array.from({ length: phnum }, (_, i) => {
    const at = phoff + i * 56;
    return {
      type: bytes.readUInt32LE(at),
      flags: bytes.readUInt32LE(at + 4),
      offset: u64(at + 8),
      vaddr: u64(at + 16),
      paddr: u64(at + 24),
      filesz: u64(at + 32),
      memsz: u64(at + 40),
    };
  });
  const raw = Array.from({ length: shnum }, (_, i) => {
    const at = shoff + i * 64;
    return {
      nameOffset: bytes.readUInt32LE(at),
      type: bytes.readUInt32LE(at + 4),
      flags: u64(at + 8),
      addr: u64(at + 16),
      offset: u64(at + 24),
      size: u64(at + 32),
      link: bytes.readUInt32LE(at + 40),
      info: bytes.readUInt32LE(at + 44),
      align: u64(at + 48),
      entsize: u64(at + 56),
    };
  });
  const cString = (at: number): string => bytes.toString('latin1', at, bytes.indexOf(0, at));
  const sections = raw.map((s) => ({ ...s, name: cString(raw[shstrndx].offset + s.nameOffset) }));
  const section = (name: string): OutputSection => {
    const found = sections.find((s) => s.name === name);
    if (found === undefined) throw new Error(`no section ${name}`);
    return found;
  };
  const data = (name: string): Buffer => {
    const s = section(name);
    return bytes.subarray(s.offset, s.offset + s.size);
  };
  return {
    bytes,
    entry: u64(0x18),
    programHeaders,
    sections,
    section,
    data,
    dynamic: () => {
      const d = data('.dynamic');
      return Array.from({ length: d.length / 16 }, (_, i) => [
        Number(d.readBigInt64LE(i * 16)),
        Number(d.readBigUInt64LE(i * 16 + 8)),
      ]);
    },
    dynsym: () => {
      const d = data('.dynsym');
      const strtab = section('.dynstr');
      return Array.from({ length: d.length / 24 }, (_, i) => ({
        name: cString(strtab.offset + d.readUInt32LE(i * 24)),
        info: d[i * 24 + 4],
        shndx: d.readUInt16LE(i * 24 + 6),
        value: Number(d.readBigUInt64LE(i * 24 + 8)),
        size: Number(d.readBigUInt64LE(i * 24 + 16)),
      }));
    },
    relocations: () => {
      if (!sections.some((s) => s.name === '.rel.dyn')) return [];
      const d = data('.rel.dyn');
      return Array.from({ length: d.length / 16 }, (_, i) => ({
        offset: Number(d.readBigUInt64LE(i * 16)),
        type: d.readUInt32LE(i * 16 + 8),
        symbol: d.readUInt32LE(i * 16 + 12),
      }));
    },
  };
}
