/**
 * Writes the SBPFv0 shared object the Solana loader accepts: ELF64 LSB, EM_BPF, ET_DYN,
 * e_flags 0, virtual addresses equal to file offsets, three program headers (code, read-only
 * data with the dynamic tables, PT_DYNAMIC) and the sections
 * `.text .rodata .dynsym .dynstr .rel.dyn .dynamic .shstrtab`, in file order.
 */
import {
  DT_NULL,
  DT_REL,
  DT_RELENT,
  DT_RELSZ,
  DT_STRSZ,
  DT_STRTAB,
  DT_SYMENT,
  DT_SYMTAB,
  DYN_SIZE,
  EHDR_SIZE,
  ELFCLASS64,
  ELFDATA2LSB,
  ELFOSABI_NONE,
  ELF_MAGIC,
  EM_BPF,
  ET_DYN,
  EV_CURRENT,
  PF_R,
  PF_X,
  PHDR_SIZE,
  PT_DYNAMIC,
  PT_LOAD,
  REL_SIZE,
  SHDR_SIZE,
  SHF_ALLOC,
  SHF_EXECINSTR,
  SHN_UNDEF,
  SHT_DYNAMIC,
  SHT_DYNSYM,
  SHT_NULL,
  SHT_PROGBITS,
  SHT_REL,
  SHT_STRTAB,
  STB_GLOBAL,
  STT_FUNC,
  STT_NOTYPE,
  SYM_SIZE,
} from './elf-constants';
import { alignUp } from './merge-sections';

const PROGRAM_HEADER_COUNT = 3;
const SECTION_ALIGN = 8;

/** Addresses (= file offsets) of the two program sections, fixed before relocation. */
export interface ImageLayout {
  readonly textAddress: number;
  readonly rodataAddress: number;
}

export function imageLayout(textSize: number, rodataAlign: number): ImageLayout {
  const textAddress = alignUp(EHDR_SIZE + PROGRAM_HEADER_COUNT * PHDR_SIZE, SECTION_ALIGN);
  const rodataAddress = alignUp(textAddress + textSize, Math.max(SECTION_ALIGN, rodataAlign));
  return { textAddress, rodataAddress };
}

/** One entry of `.rel.dyn`: what the loader patches when it deploys the program. */
export interface DynamicRelocation {
  /** Address (= file offset) of the patched instruction or data. */
  readonly offset: number;
  readonly type: number;
  /** For R_BPF_64_32: the syscall's name (an undefined `.dynsym` entry). */
  readonly symbol?: string;
}

export interface SharedObjectContents {
  readonly layout: ImageLayout;
  readonly text: Uint8Array;
  readonly rodata: Uint8Array;
  readonly rodataAlign: number;
  /** Address of `entrypoint` (e_entry) and its st_size for `.dynsym`. */
  readonly entry: { readonly address: number; readonly size: number };
  /** Sorted by offset; every `symbol` must appear in `syscalls`. */
  readonly relocations: readonly DynamicRelocation[];
  /** Undefined `.dynsym` entries, in the order they are written. */
  readonly syscalls: readonly string[];
}

/** A string table built in insertion order; offset 0 is the empty string. */
class StringTable {
  private readonly parts: Buffer[] = [Buffer.alloc(1)];
  private size = 1;
  private readonly offsets = new Map<string, number>();

  add(value: string): number {
    if (value === '') return 0;
    const known = this.offsets.get(value);
    if (known !== undefined) return known;
    const offset = this.size;
    const bytes = Buffer.from(`${value}\0`, 'latin1');
    this.parts.push(bytes);
    this.size += bytes.length;
    this.offsets.set(value, offset);
    return offset;
  }

  bytes(): Buffer {
    return Buffer.concat(this.parts);
  }
}

interface SectionHeader {
  name: string;
  type: number;
  flags: number;
  offset: number;
  size: number;
  link?: string;
  info?: number;
  align: number;
  entsize?: number;
}

export function writeSharedObject(contents: SharedObjectContents): Buffer {
  const { layout, text, rodata } = contents;
  const hasRodata = rodata.length > 0;
  const hasRelocations = contents.relocations.length > 0;

  // .dynsym: the null symbol, the exported entrypoint, then one undefined entry per syscall.
  const dynstr = new StringTable();
  const dynsymIndex = new Map<string, number>();
  const dynsym = Buffer.alloc(SYM_SIZE * (2 + contents.syscalls.length));
  const textSectionIndex = 1;
  writeSymbol(dynsym, 1, {
    name: dynstr.add('entrypoint'),
    info: (STB_GLOBAL << 4) | STT_FUNC,
    shndx: textSectionIndex,
    value: contents.entry.address,
    size: contents.entry.size,
  });
  contents.syscalls.forEach((name, i) => {
    dynsymIndex.set(name, 2 + i);
    writeSymbol(dynsym, 2 + i, {
      name: dynstr.add(name),
      info: (STB_GLOBAL << 4) | STT_NOTYPE,
      shndx: SHN_UNDEF,
      value: 0,
      size: 0,
    });
  });
  const dynstrBytes = dynstr.bytes();

  const relDyn = Buffer.alloc(REL_SIZE * contents.relocations.length);
  contents.relocations.forEach((relocation, i) => {
    const symbolIndex = relocation.symbol === undefined ? 0 : dynsymIndex.get(relocation.symbol);
    if (symbolIndex === undefined) {
      throw new Error(`internal: relocation against ${relocation.symbol} without a .dynsym entry`);
    }
    relDyn.writeBigUInt64LE(BigInt(relocation.offset), i * REL_SIZE);
    relDyn.writeBigUInt64LE(
      (BigInt(symbolIndex) << 32n) | BigInt(relocation.type),
      i * REL_SIZE + 8,
    );
  });

  // File layout (addresses equal offsets).
  const textEnd = layout.textAddress + text.length;
  const rodataEnd = layout.rodataAddress + rodata.length;
  const dynsymAddress = alignUp(hasRodata ? rodataEnd : textEnd, SECTION_ALIGN);
  const dynstrAddress = dynsymAddress + dynsym.length;
  const relDynAddress = alignUp(dynstrAddress + dynstrBytes.length, SECTION_ALIGN);
  const dynamicAddress = alignUp(relDynAddress + relDyn.length, SECTION_ALIGN);

  const dynamicEntries: [number, number][] = [];
  if (hasRelocations) {
    dynamicEntries.push([DT_REL, relDynAddress], [DT_RELSZ, relDyn.length], [DT_RELENT, REL_SIZE]);
  }
  dynamicEntries.push(
    [DT_SYMTAB, dynsymAddress],
    [DT_SYMENT, SYM_SIZE],
    [DT_STRTAB, dynstrAddress],
    [DT_STRSZ, dynstrBytes.length],
    [DT_NULL, 0],
  );
  const dynamic = Buffer.alloc(DYN_SIZE * dynamicEntries.length);
  dynamicEntries.forEach(([tag, value], i) => {
    dynamic.writeBigInt64LE(BigInt(tag), i * DYN_SIZE);
    dynamic.writeBigUInt64LE(BigInt(value), i * DYN_SIZE + 8);
  });
  const dynamicEnd = dynamicAddress + dynamic.length;

  const sections: SectionHeader[] = [
    { name: '', type: SHT_NULL, flags: 0, offset: 0, size: 0, align: 0 },
    {
      name: '.text',
      type: SHT_PROGBITS,
      flags: SHF_ALLOC | SHF_EXECINSTR,
      offset: layout.textAddress,
      size: text.length,
      align: SECTION_ALIGN,
    },
  ];
  if (hasRodata) {
    sections.push({
      name: '.rodata',
      type: SHT_PROGBITS,
      flags: SHF_ALLOC,
      offset: layout.rodataAddress,
      size: rodata.length,
      align: Math.max(SECTION_ALIGN, contents.rodataAlign),
    });
  }
  sections.push(
    {
      name: '.dynsym',
      type: SHT_DYNSYM,
      flags: SHF_ALLOC,
      offset: dynsymAddress,
      size: dynsym.length,
      link: '.dynstr',
      info: 1,
      align: SECTION_ALIGN,
      entsize: SYM_SIZE,
    },
    {
      name: '.dynstr',
      type: SHT_STRTAB,
      flags: SHF_ALLOC,
      offset: dynstrAddress,
      size: dynstrBytes.length,
      align: 1,
    },
  );
  if (hasRelocations) {
    sections.push({
      name: '.rel.dyn',
      type: SHT_REL,
      flags: SHF_ALLOC,
      offset: relDynAddress,
      size: relDyn.length,
      link: '.dynsym',
      align: SECTION_ALIGN,
      entsize: REL_SIZE,
    });
  }
  sections.push({
    name: '.dynamic',
    type: SHT_DYNAMIC,
    flags: SHF_ALLOC,
    offset: dynamicAddress,
    size: dynamic.length,
    link: '.dynstr',
    align: SECTION_ALIGN,
    entsize: DYN_SIZE,
  });

  const shstrtab = new StringTable();
  const sectionNameOffsets = sections.map((s) => shstrtab.add(s.name));
  const shstrtabNameOffset = shstrtab.add('.shstrtab');
  const shstrtabBytes = shstrtab.bytes();
  sections.push({
    name: '.shstrtab',
    type: SHT_STRTAB,
    flags: 0,
    offset: dynamicEnd,
    size: shstrtabBytes.length,
    align: 1,
  });
  sectionNameOffsets.push(shstrtabNameOffset);
  const sectionHeadersOffset = alignUp(dynamicEnd + shstrtabBytes.length, SECTION_ALIGN);

  const out = Buffer.alloc(sectionHeadersOffset + sections.length * SHDR_SIZE);
  writeFileHeader(out, {
    entry: contents.entry.address,
    sectionHeadersOffset,
    sectionCount: sections.length,
    sectionNamesIndex: sections.length - 1,
  });

  const rodataSegmentStart = hasRodata ? layout.rodataAddress : dynsymAddress;
  writeProgramHeader(out, 0, PT_LOAD, PF_R | PF_X, layout.textAddress, text.length);
  writeProgramHeader(out, 1, PT_LOAD, PF_R, rodataSegmentStart, dynamicEnd - rodataSegmentStart);
  writeProgramHeader(out, 2, PT_DYNAMIC, PF_R, dynamicAddress, dynamic.length);

  out.set(text, layout.textAddress);
  out.set(rodata, layout.rodataAddress);
  out.set(dynsym, dynsymAddress);
  out.set(dynstrBytes, dynstrAddress);
  out.set(relDyn, relDynAddress);
  out.set(dynamic, dynamicAddress);
  out.set(shstrtabBytes, dynamicEnd);

  const indexOf = (name: string | undefined): number =>
    name === undefined ? 0 : sections.findIndex((s) => s.name === name);
  sections.forEach((section, i) => {
    const at = sectionHeadersOffset + i * SHDR_SIZE;
    const allocated = (section.flags & SHF_ALLOC) !== 0;
    out.writeUInt32LE(sectionNameOffsets[i], at);
    out.writeUInt32LE(section.type, at + 0x04);
    out.writeBigUInt64LE(BigInt(section.flags), at + 0x08);
    out.writeBigUInt64LE(BigInt(allocated ? section.offset : 0), at + 0x10);
    out.writeBigUInt64LE(BigInt(section.offset), at + 0x18);
    out.writeBigUInt64LE(BigInt(section.size), at + 0x20);
    out.writeUInt32LE(indexOf(section.link), at + 0x28);
    out.writeUInt32LE(section.info ?? 0, at + 0x2c);
    out.writeBigUInt64LE(BigInt(section.align), at + 0x30);
    out.writeBigUInt64LE(BigInt(section.entsize ?? 0), at + 0x38);
  });
  return out;
}

function writeFileHeader(
  out: Buffer,
  header: {
    entry: number;
    sectionHeadersOffset: number;
    sectionCount: number;
    sectionNamesIndex: number;
  },
): void {
  out.set(ELF_MAGIC, 0);
  out[4] = ELFCLASS64;
  out[5] = ELFDATA2LSB;
  out[6] = EV_CURRENT;
  out[7] = ELFOSABI_NONE;
  out.writeUInt16LE(ET_DYN, 0x10);
  out.writeUInt16LE(EM_BPF, 0x12);
  out.writeUInt32LE(EV_CURRENT, 0x14);
  out.writeBigUInt64LE(BigInt(header.entry), 0x18);
  out.writeBigUInt64LE(BigInt(EHDR_SIZE), 0x20); // e_phoff
  out.writeBigUInt64LE(BigInt(header.sectionHeadersOffset), 0x28);
  out.writeUInt32LE(0, 0x30); // e_flags 0: SBPFv0
  out.writeUInt16LE(EHDR_SIZE, 0x34);
  out.writeUInt16LE(PHDR_SIZE, 0x36);
  out.writeUInt16LE(PROGRAM_HEADER_COUNT, 0x38);
  out.writeUInt16LE(SHDR_SIZE, 0x3a);
  out.writeUInt16LE(header.sectionCount, 0x3c);
  out.writeUInt16LE(header.sectionNamesIndex, 0x3e);
}

function writeProgramHeader(
  out: Buffer,
  index: number,
  type: number,
  flags: number,
  address: number,
  size: number,
): void {
  const at = EHDR_SIZE + index * PHDR_SIZE;
  out.writeUInt32LE(type, at);
  out.writeUInt32LE(flags, at + 0x04);
  out.writeBigUInt64LE(BigInt(address), at + 0x08); // p_offset
  out.writeBigUInt64LE(BigInt(address), at + 0x10); // p_vaddr
  out.writeBigUInt64LE(BigInt(address), at + 0x18); // p_paddr
  out.writeBigUInt64LE(BigInt(size), at + 0x20); // p_filesz
  out.writeBigUInt64LE(BigInt(size), at + 0x28); // p_memsz
  out.writeBigUInt64LE(BigInt(SECTION_ALIGN), at + 0x30);
}

function writeSymbol(
  table: Buffer,
  index: number,
  symbol: { name: number; info: number; shndx: number; value: number; size: number },
): void {
  const at = index * SYM_SIZE;
  table.writeUInt32LE(symbol.name, at);
  table[at + 4] = symbol.info;
  table[at + 5] = 0;
  table.writeUInt16LE(symbol.shndx, at + 6);
  table.writeBigUInt64LE(BigInt(symbol.value), at + 8);
  table.writeBigUInt64LE(BigInt(symbol.size), at + 16);
}
