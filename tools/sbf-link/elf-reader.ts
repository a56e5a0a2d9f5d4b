/**
 * Parses ELF64 little-endian relocatable eBPF objects (what `clang -target bpf -c` writes):
 * section headers, the symbol table and the REL/RELA sections, checked for bounds on the way.
 */
import {
  EHDR_SIZE,
  ELFCLASS32,
  ELFCLASS64,
  ELFDATA2LSB,
  ELFDATA2MSB,
  ELF_MAGIC,
  EM_BPF,
  ET_REL,
  REL_SIZE,
  RELA_SIZE,
  SHDR_SIZE,
  SHN_LORESERVE,
  SHN_XINDEX,
  SHT_NOBITS,
  SHT_REL,
  SHT_RELA,
  SHT_STRTAB,
  SHT_SYMTAB,
  SYM_SIZE,
} from './elf-constants';
import { LinkError, hex } from './link-error';

export interface InputSection {
  /** Index in the object's section header table. */
  readonly index: number;
  readonly name: string;
  readonly type: number;
  readonly flags: number;
  readonly addralign: number;
  readonly size: number;
  readonly link: number;
  readonly info: number;
  readonly entsize: number;
  /** The section's bytes (empty for SHT_NOBITS). */
  readonly data: Uint8Array;
}

export interface InputSymbol {
  readonly index: number;
  readonly name: string;
  readonly value: number;
  readonly size: number;
  readonly bind: number;
  readonly type: number;
  readonly shndx: number;
}

export interface InputRelocation {
  /** Offset inside the section the relocation applies to. */
  readonly offset: number;
  readonly type: number;
  /** Index into the object's symbol table. */
  readonly symbol: number;
  /** Explicit addend (RELA only); REL relocations keep theirs in the patched bytes. */
  readonly addend?: bigint;
}

export interface RelocationSection {
  readonly name: string;
  /** Index of the section the relocations patch (sh_info). */
  readonly target: number;
  readonly rela: boolean;
  readonly relocations: readonly InputRelocation[];
}

export interface ObjectFile {
  readonly name: string;
  /** Every section header, index 0 (SHT_NULL) included, so `sections[i].index === i`. */
  readonly sections: readonly InputSection[];
  /** The symbol table, index 0 (the null symbol) included; empty when the object has none. */
  readonly symbols: readonly InputSymbol[];
  readonly relocationSections: readonly RelocationSection[];
}

/** Largest value the linker accepts for any size or address: the output must fit in 4 GiB. */
const MAX_U32 = 0xffff_ffff;

class Reader {
  private readonly view: DataView;

  constructor(
    readonly objectName: string,
    readonly bytes: Uint8Array,
  ) {
    this.view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  }

  fail(message: string): never {
    throw new LinkError(`${this.objectName}: ${message}`);
  }

  check(offset: number, length: number, what: string): void {
    if (offset < 0 || length < 0 || offset + length > this.bytes.length) {
      this.fail(`${what} (${hex(offset)}..${hex(offset + length)}) lies outside the file`);
    }
  }

  u8(offset: number): number {
    return this.view.getUint8(offset);
  }

  u16(offset: number): number {
    return this.view.getUint16(offset, true);
  }

  u32(offset: number): number {
    return this.view.getUint32(offset, true);
  }

  /** A u64 field that must fit in 32 bits (sizes, offsets, symbol values). */
  u64(offset: number, what: string): number {
    const value = this.view.getBigUint64(offset, true);
    if (value > BigInt(MAX_U32)) this.fail(`${what} ${hex(value)} does not fit in 32 bits`);
    return Number(value);
  }

  i64(offset: number): bigint {
    return this.view.getBigInt64(offset, true);
  }

  /** A NUL-terminated string at `offset` inside a string table section. */
  string(table: { offset: number; size: number; name: string }, offset: number): string {
    if (offset >= table.size && !(offset === 0 && table.size === 0)) {
      this.fail(`string offset ${hex(offset)} lies outside ${table.name}`);
    }
    if (table.size === 0) return '';
    const start = table.offset + offset;
    const end = this.bytes.indexOf(0, start);
    if (end < 0 || end >= table.offset + table.size) {
      this.fail(`string at ${hex(offset)} in ${table.name} is not NUL-terminated`);
    }
    return Buffer.from(this.bytes.subarray(start, end)).toString('latin1');
  }
}

interface RawSection {
  readonly nameOffset: number;
  readonly type: number;
  readonly flags: number;
  readonly offset: number;
  readonly size: number;
  readonly link: number;
  readonly info: number;
  readonly addralign: number;
  readonly entsize: number;
}

/** Parses one relocatable eBPF object; throws LinkError naming `name` on anything malformed. */
export function readObject(name: string, bytes: Uint8Array): ObjectFile {
  const r = new Reader(name, bytes);
  readHeaderIdentity(r);

  const shoff = r.u64(0x28, 'e_shoff');
  const shentsize = r.u16(0x3a);
  const shnum = r.u16(0x3c);
  const shstrndx = r.u16(0x3e);
  if (shnum === 0) r.fail('has no section headers (or uses extended section numbering)');
  if (shentsize !== SHDR_SIZE) r.fail(`e_shentsize is ${shentsize}, expected ${SHDR_SIZE}`);
  if (shstrndx === 0 || shstrndx >= shnum) {
    r.fail(`e_shstrndx ${shstrndx} is not a section (the object has ${shnum})`);
  }
  r.check(shoff, shnum * SHDR_SIZE, 'the section header table');

  const raw: RawSection[] = [];
  for (let i = 0; i < shnum; i++) {
    const at = shoff + i * SHDR_SIZE;
    raw.push({
      nameOffset: r.u32(at),
      type: r.u32(at + 0x04),
      // The flags the linker cares about all live in the low 32 bits of sh_flags.
      flags: r.u32(at + 0x08),
      offset: r.u64(at + 0x18, `section ${i} sh_offset`),
      size: r.u64(at + 0x20, `section ${i} sh_size`),
      link: r.u32(at + 0x28),
      info: r.u32(at + 0x2c),
      addralign: r.u64(at + 0x30, `section ${i} sh_addralign`),
      entsize: r.u64(at + 0x38, `section ${i} sh_entsize`),
    });
  }

  const shstr = raw[shstrndx];
  if (shstr.type !== SHT_STRTAB) r.fail(`section ${shstrndx} (e_shstrndx) is not a string table`);
  r.check(shstr.offset, shstr.size, 'the section name table');
  const shstrTable = { offset: shstr.offset, size: shstr.size, name: 'the section name table' };

  const sections: InputSection[] = raw.map((s, index) => {
    const sectionName = index === 0 ? '' : r.string(shstrTable, s.nameOffset);
    if (index !== 0 && s.type !== SHT_NOBITS) {
      r.check(s.offset, s.size, `section ${sectionName}`);
    }
    const data =
      index === 0 || s.type === SHT_NOBITS
        ? new Uint8Array(0)
        : bytes.subarray(s.offset, s.offset + s.size);
    return {
      index,
      name: sectionName,
      type: s.type,
      flags: s.flags,
      addralign: s.addralign,
      size: s.size,
      link: s.link,
      info: s.info,
      entsize: s.entsize,
      data,
    };
  });

  const symbols = readSymbols(r, raw, sections);
  const relocationSections = readRelocationSections(r, raw, sections, symbols.length);
  return { name, sections, symbols, relocationSections };
}

function readHeaderIdentity(r: Reader): void {
  if (r.bytes.length < EHDR_SIZE) r.fail('is too short to be an ELF file');
  for (let i = 0; i < ELF_MAGIC.length; i++) {
    if (r.u8(i) !== ELF_MAGIC[i]) r.fail('is not an ELF file (bad magic)');
  }
  const elfClass = r.u8(4);
  if (elfClass === ELFCLASS32) r.fail('is ELF32; only ELF64 eBPF objects can be linked');
  if (elfClass !== ELFCLASS64) r.fail(`has unknown ELF class ${elfClass}`);
  const data = r.u8(5);
  if (data === ELFDATA2MSB) r.fail('is big-endian; SBF programs are little-endian (-target bpfel)');
  if (data !== ELFDATA2LSB) r.fail(`has unknown ELF data encoding ${data}`);
  const type = r.u16(0x10);
  if (type !== ET_REL) {
    r.fail(
      `is not a relocatable object (e_type ${type}, expected ET_REL ${ET_REL}); link .o files`,
    );
  }
  const machine = r.u16(0x12);
  if (machine !== EM_BPF) {
    r.fail(`has e_machine ${machine}, not EM_BPF (${EM_BPF}); compile with clang -target bpf`);
  }
}

function readSymbols(r: Reader, raw: RawSection[], sections: InputSection[]): InputSymbol[] {
  const symtabs = sections.filter((s) => s.type === SHT_SYMTAB);
  if (symtabs.length === 0) return [];
  if (symtabs.length > 1) r.fail('has more than one symbol table');
  const symtab = symtabs[0];
  if (symtab.entsize !== SYM_SIZE || symtab.size % SYM_SIZE !== 0) {
    r.fail(`${symtab.name} has entry size ${symtab.entsize} and size ${symtab.size}`);
  }
  const strtab = raw[symtab.link];
  if (symtab.link === 0 || strtab === undefined || strtab.type !== SHT_STRTAB) {
    r.fail(`${symtab.name} links to section ${symtab.link}, which is not a string table`);
  }
  const strTable = {
    offset: strtab.offset,
    size: strtab.size,
    name: sections[symtab.link].name,
  };
  const symtabOffset = raw[symtab.index].offset;
  const count = symtab.size / SYM_SIZE;
  const symbols: InputSymbol[] = [];
  for (let index = 0; index < count; index++) {
    const at = symtabOffset + index * SYM_SIZE;
    const info = r.u8(at + 4);
    const shndx = r.u16(at + 6);
    if (shndx === SHN_XINDEX) r.fail(`symbol ${index} uses extended section indexes`);
    if (shndx !== 0 && shndx < SHN_LORESERVE && shndx >= sections.length) {
      r.fail(`symbol ${index} refers to section ${shndx}, which does not exist`);
    }
    symbols.push({
      index,
      name: r.string(strTable, r.u32(at)),
      bind: info >> 4,
      type: info & 0xf,
      shndx,
      value: r.u64(at + 8, `symbol ${index} st_value`),
      size: r.u64(at + 16, `symbol ${index} st_size`),
    });
  }
  return symbols;
}

function readRelocationSections(
  r: Reader,
  raw: RawSection[],
  sections: InputSection[],
  symbolCount: number,
): RelocationSection[] {
  const result: RelocationSection[] = [];
  for (const section of sections) {
    if (section.type !== SHT_REL && section.type !== SHT_RELA) continue;
    const rela = section.type === SHT_RELA;
    const entry = rela ? RELA_SIZE : REL_SIZE;
    if (section.entsize !== entry || section.size % entry !== 0) {
      r.fail(`${section.name} has entry size ${section.entsize} and size ${section.size}`);
    }
    if (section.info === 0 || section.info >= sections.length) {
      r.fail(`${section.name} applies to section ${section.info}, which does not exist`);
    }
    const relocations: InputRelocation[] = [];
    const base = raw[section.index].offset;
    for (let i = 0; i < section.size / entry; i++) {
      const at = base + i * entry;
      const offset = r.u64(at, `${section.name} entry ${i} r_offset`);
      const type = r.u32(at + 8);
      const symbol = r.u32(at + 12);
      if (symbol >= symbolCount && !(symbol === 0 && symbolCount === 0)) {
        r.fail(
          `${section.name} at ${hex(offset)} refers to symbol ${symbol}, which does not exist`,
        );
      }
      relocations.push(
        rela ? { offset, type, symbol, addend: r.i64(at + 16) } : { offset, type, symbol },
      );
    }
    result.push({ name: section.name, target: section.info, rela, relocations });
  }
  return result;
}
