import {
  DT_NULL,
  DT_REL,
  DT_RELENT,
  DT_RELSZ,
  DT_STRSZ,
  DT_STRTAB,
  DT_SYMENT,
  DT_SYMTAB,
  EM_BPF,
  ET_DYN,
  PF_R,
  PF_X,
  PT_DYNAMIC,
  PT_LOAD,
  R_BPF_64_32,
  R_BPF_64_64,
  R_BPF_64_ABS32,
  R_BPF_64_ABS64,
  R_BPF_64_RELATIVE,
  SHF_ALLOC,
  SHF_EXECINSTR,
  SHT_DYNAMIC,
  SHT_DYNSYM,
  SHT_REL,
  STB_GLOBAL,
  STT_FUNC,
} from './elf-constants';
import { linkSbf } from './link';
import {
  buildObject,
  ebpf,
  readSharedObject,
  type ObjectSpec,
  type SymbolSpec,
} from './object-builder.spec-support';
import { SBF_LOADER_SECTIONS } from '../../src/chain/sbf-loader-sections.spec-support';

const entrypoint: SymbolSpec = { name: 'entrypoint', section: '.text', type: 'func' };

function link(...specs: ObjectSpec[]) {
  return readSharedObject(
    linkSbf(specs.map((spec, i) => ({ name: `obj${i}.o`, bytes: buildObject(spec) }))),
  );
}

/** The lddw imm halves at `address` (an address in the output = file offset). */
function lddwImm(out: ReturnType<typeof link>, address: number): [number, number] {
  return [out.bytes.readUInt32LE(address + 4), out.bytes.readUInt32LE(address + 12)];
}

describe('linkSbf: relocations', () => {
  it('turns an lddw of .rodata into the final address plus an R_BPF_64_RELATIVE', () => {
    const out = link({
      sections: [
        { name: '.text', data: ebpf.code(ebpf.lddw(1, 4), ebpf.exit()) },
        { name: '.rodata', data: Buffer.from('0123456789abcdef') },
      ],
      symbols: [{ ...entrypoint, size: 24 }],
      relocations: [{ section: '.text', offset: 0, type: R_BPF_64_64, symbol: '.rodata' }],
    });
    const text = out.section('.text');
    const rodata = out.section('.rodata');
    expect(lddwImm(out, text.addr)).toEqual([rodata.addr + 4, 0]);
    expect(out.relocations()).toEqual([{ offset: text.addr, type: R_BPF_64_RELATIVE, symbol: 0 }]);
    expect(out.data('.rodata').toString()).toBe('0123456789abcdef');
  });

  it('merges .rodata.str1.1 into the one .rodata and keeps addends and symbol values', () => {
    const out = link({
      sections: [
        {
          name: '.text',
          data: ebpf.code(ebpf.lddw(1, 6), ebpf.lddw(2, 1), ebpf.lddw(3, 0), ebpf.exit()),
        },
        { name: '.rodata', data: Buffer.from('twelve bytes') },
        { name: '.rodata.str1.1', align: 1, entsize: 1, data: Buffer.from('hello\0world\0') },
      ],
      symbols: [
        entrypoint,
        { name: 'msg', section: '.rodata', value: 3, size: 4, bind: 'local', type: 'object' },
        { name: 'tail', section: '.rodata.str1.1', value: 8, type: 'object' },
      ],
      relocations: [
        { section: '.text', offset: 0, type: R_BPF_64_64, symbol: '.rodata.str1.1' },
        { section: '.text', offset: 16, type: R_BPF_64_64, symbol: 'msg' },
        { section: '.text', offset: 32, type: R_BPF_64_64, symbol: 'tail' },
      ],
    });
    const names = out.sections.map((s) => s.name);
    expect(names.filter((n) => n.startsWith('.rodata'))).toEqual(['.rodata']);
    const text = out.section('.text').addr;
    const rodata = out.section('.rodata').addr;
    // .rodata (12 bytes) first, then the string section (align 1) right after it.
    expect(out.data('.rodata').toString('latin1')).toBe('twelve byteshello\0world\0');
    expect(lddwImm(out, text)).toEqual([rodata + 12 + 6, 0]);
    expect(lddwImm(out, text + 16)).toEqual([rodata + 3 + 1, 0]);
    expect(lddwImm(out, text + 32)).toEqual([rodata + 12 + 8, 0]);
    expect(out.bytes.toString('latin1', rodata + 18, rodata + 23)).toBe('world');
    expect(out.relocations().map((r) => [r.offset - text, r.type])).toEqual([
      [0, R_BPF_64_RELATIVE],
      [16, R_BPF_64_RELATIVE],
      [32, R_BPF_64_RELATIVE],
    ]);
  });

  it('reads lddw addends as signed and links addresses of code too', () => {
    const out = link({
      sections: [
        { name: '.text', data: ebpf.code(ebpf.lddw(1, -4), ebpf.lddw(2, 8), ebpf.exit()) },
        { name: '.rodata', data: Buffer.alloc(16) },
      ],
      symbols: [
        entrypoint,
        { name: 'late', section: '.rodata', value: 12, bind: 'local', type: 'object' },
      ],
      relocations: [
        { section: '.text', offset: 0, type: R_BPF_64_64, symbol: 'late' },
        { section: '.text', offset: 16, type: R_BPF_64_64, symbol: 'entrypoint' },
      ],
    });
    const text = out.section('.text').addr;
    expect(lddwImm(out, text)).toEqual([out.section('.rodata').addr + 8, 0]);
    expect(lddwImm(out, text + 16)).toEqual([text + 8, 0]);
    expect(out.relocations().map((r) => r.offset - text)).toEqual([0, 16]);
  });

  it('refuses an address before the program', () => {
    expect(() =>
      link({
        sections: [{ name: '.text', data: ebpf.code(ebpf.lddw(1, -4096), ebpf.exit()) }],
        symbols: [entrypoint],
        relocations: [{ section: '.text', offset: 0, type: R_BPF_64_64, symbol: '.text' }],
      }),
    ).toThrow(
      /against \.text: the address -0x[0-9a-f]+ \(addend -4096\) lies outside the program$/,
    );
  });

  it('aligns read-only pieces to their sh_addralign', () => {
    const out = link({
      sections: [
        { name: '.text', data: ebpf.code(ebpf.lddw(1), ebpf.exit()) },
        { name: '.rodata.str1.1', align: 1, data: Buffer.from('abc\0') },
        { name: '.rodata.cst16', align: 16, data: Buffer.alloc(16, 0xaa) },
      ],
      symbols: [entrypoint],
      relocations: [{ section: '.text', offset: 0, type: R_BPF_64_64, symbol: '.rodata.cst16' }],
    });
    const rodata = out.section('.rodata');
    expect(rodata.addr % 16).toBe(0);
    expect(rodata.align).toBe(16);
    expect(lddwImm(out, out.section('.text').addr)).toEqual([rodata.addr + 16, 0]);
    expect(out.bytes.subarray(rodata.addr + 16, rodata.addr + 32)).toEqual(Buffer.alloc(16, 0xaa));
  });

  it('keeps syscalls as R_BPF_64_32 against one undefined .dynsym entry per name', () => {
    const out = link({
      sections: [
        {
          name: '.text',
          data: ebpf.code(ebpf.call(), ebpf.call(), ebpf.call(), ebpf.mov64(0, 0), ebpf.exit()),
        },
      ],
      symbols: [entrypoint, { name: 'sol_log_' }, { name: 'sol_log_64_' }],
      relocations: [
        { section: '.text', offset: 0, type: R_BPF_64_32, symbol: 'sol_log_64_' },
        { section: '.text', offset: 8, type: R_BPF_64_32, symbol: 'sol_log_' },
        { section: '.text', offset: 16, type: R_BPF_64_32, symbol: 'sol_log_64_' },
      ],
    });
    const dynsym = out.dynsym();
    expect(dynsym.map((s) => s.name)).toEqual(['', 'entrypoint', 'sol_log_', 'sol_log_64_']);
    for (const syscall of dynsym.slice(2)) {
      expect(syscall).toMatchObject({ shndx: 0, value: 0, size: 0 });
      expect(syscall.info >> 4).toBe(STB_GLOBAL);
    }
    expect(out.data('.dynstr').toString('latin1')).toBe('\0entrypoint\0sol_log_\0sol_log_64_\0');
    const text = out.section('.text').addr;
    expect(out.relocations()).toEqual([
      { offset: text, type: R_BPF_64_32, symbol: 3 },
      { offset: text + 8, type: R_BPF_64_32, symbol: 2 },
      { offset: text + 16, type: R_BPF_64_32, symbol: 3 },
    ]);
    for (const at of [0, 8, 16]) expect(out.bytes.readInt32LE(text + at + 4)).toBe(-1);
  });

  it('writes pointer tables in .rodata as address << 32 with an R_BPF_64_RELATIVE each', () => {
    const table = Buffer.alloc(16);
    table.writeBigInt64LE(0n, 0);
    table.writeBigInt64LE(6n, 8); // implicit addend of the second pointer
    const out = link({
      sections: [
        { name: '.text', data: ebpf.code(ebpf.lddw(1), ebpf.exit()) },
        { name: '.rodata.str1.1', align: 1, data: Buffer.from('alpha\0beta\0') },
        { name: '.rodata', data: table },
      ],
      symbols: [entrypoint, { name: 'names', section: '.rodata', size: 16, type: 'object' }],
      relocations: [
        { section: '.text', offset: 0, type: R_BPF_64_64, symbol: 'names' },
        { section: '.rodata', offset: 0, type: R_BPF_64_ABS64, symbol: '.rodata.str1.1' },
        { section: '.rodata', offset: 8, type: R_BPF_64_ABS64, symbol: '.rodata.str1.1' },
      ],
    });
    const rodata = out.section('.rodata').addr;
    const tableAt = rodata + 16; // after 11 string bytes, aligned to 8
    expect(lddwImm(out, out.section('.text').addr)).toEqual([tableAt, 0]);
    expect(out.bytes.readBigUInt64LE(tableAt)).toBe(BigInt(rodata) << 32n);
    expect(out.bytes.readBigUInt64LE(tableAt + 8)).toBe(BigInt(rodata + 6) << 32n);
    expect(out.relocations().slice(1)).toEqual([
      { offset: tableAt, type: R_BPF_64_RELATIVE, symbol: 0 },
      { offset: tableAt + 8, type: R_BPF_64_RELATIVE, symbol: 0 },
    ]);
  });

  it('resolves a call to a global function in another object to a pc-relative call', () => {
    const out = link(
      {
        sections: [{ name: '.text', data: ebpf.code(ebpf.call(-1, 0), ebpf.exit()) }],
        symbols: [entrypoint, { name: 'helper' }],
        relocations: [{ section: '.text', offset: 0, type: R_BPF_64_32, symbol: 'helper' }],
      },
      {
        sections: [{ name: '.text', data: ebpf.code(ebpf.mov64(0, 7), ebpf.exit()) }],
        symbols: [{ name: 'helper', section: '.text', type: 'func', size: 16 }],
      },
    );
    const text = out.section('.text').addr;
    // call at instruction 0, helper at instruction 2: imm = 2 - 0 - 1, src register 1.
    expect(out.bytes.readInt32LE(text + 4)).toBe(1);
    expect(out.bytes[text + 1] >> 4).toBe(1);
    expect(out.relocations()).toEqual([]);
    expect(out.dynsym().map((s) => s.name)).toEqual(['', 'entrypoint']);
  });

  it('resolves a call against a section symbol (a static function in another section)', () => {
    const out = link({
      sections: [
        { name: '.text.entry', data: ebpf.code(ebpf.call(0), ebpf.call(-1), ebpf.exit()) },
        { name: '.text.statics', data: ebpf.code(ebpf.exit(), ebpf.mov64(0, 1), ebpf.exit()) },
      ],
      symbols: [{ ...entrypoint, section: '.text.entry' }],
      relocations: [
        // imm 0 = one instruction past the section start (the implicit addend is imm + 1).
        { section: '.text.entry', offset: 0, type: R_BPF_64_32, symbol: '.text.statics' },
        { section: '.text.entry', offset: 8, type: R_BPF_64_32, symbol: '.text.statics' },
      ],
    });
    const text = out.section('.text').addr;
    expect(out.bytes.readInt32LE(text + 4)).toBe(4 - 0 - 1);
    expect(out.bytes.readInt32LE(text + 12)).toBe(3 - 1 - 1);
  });

  it('prefers a strong definition over a weak one', () => {
    const caller: ObjectSpec = {
      sections: [{ name: '.text', data: ebpf.code(ebpf.call(), ebpf.exit()) }],
      symbols: [entrypoint, { name: 'helper' }],
      relocations: [{ section: '.text', offset: 0, type: R_BPF_64_32, symbol: 'helper' }],
    };
    const weak: ObjectSpec = {
      sections: [{ name: '.text', data: ebpf.code(ebpf.exit()) }],
      symbols: [{ name: 'helper', section: '.text', type: 'func', bind: 'weak' }],
    };
    const strong: ObjectSpec = {
      sections: [{ name: '.text', data: ebpf.code(ebpf.exit()) }],
      symbols: [{ name: 'helper', section: '.text', type: 'func' }],
    };
    const out = link(caller, weak, strong);
    // helper (strong) is the 4th instruction: 3 - 0 - 1.
    expect(out.bytes.readInt32LE(out.section('.text').addr + 4)).toBe(2);
  });

  it('moves the callx register from dst to imm, where SBPFv0 reads it', () => {
    const out = link({
      sections: [{ name: '.text', data: ebpf.code(ebpf.callx(2), ebpf.exit()) }],
      symbols: [entrypoint],
    });
    const text = out.section('.text').addr;
    expect(out.bytes.readInt32LE(text + 4)).toBe(2);
  });

  it('ignores debug sections and their relocations', () => {
    const out = link({
      sections: [
        { name: '.text', data: ebpf.code(ebpf.exit()) },
        { name: '.debug_info', flags: 0, align: 1, data: Buffer.alloc(8) },
        { name: '.comment', flags: 0x30, align: 1, data: Buffer.from('clang\0') },
      ],
      symbols: [entrypoint],
      relocations: [{ section: '.debug_info', offset: 0, type: R_BPF_64_ABS32, symbol: '.text' }],
    });
    expect(out.sections.map((s) => s.name)).not.toContain('.debug_info');
  });
});

describe('linkSbf: output file', () => {
  const twoFunctions: ObjectSpec = {
    sections: [
      {
        name: '.text',
        data: ebpf.code(ebpf.mov64(0, 1), ebpf.exit(), ebpf.lddw(1), ebpf.call(), ebpf.exit()),
      },
      { name: '.rodata', data: Buffer.from('rodata!\0') },
    ],
    symbols: [
      { name: 'first', section: '.text', type: 'func', size: 16, bind: 'local' },
      { name: 'entrypoint', section: '.text', type: 'func', value: 16, size: 32 },
      { name: 'sol_log_' },
    ],
    relocations: [
      { section: '.text', offset: 16, type: R_BPF_64_64, symbol: '.rodata' },
      { section: '.text', offset: 32, type: R_BPF_64_32, symbol: 'sol_log_' },
    ],
  };

  it('is an SBPFv0 ELF64 shared object entered at entrypoint', () => {
    const out = link(twoFunctions);
    const b = out.bytes;
    expect([...b.subarray(0, 8)]).toEqual([0x7f, 0x45, 0x4c, 0x46, 2, 1, 1, 0]);
    expect(b.readUInt16LE(0x10)).toBe(ET_DYN);
    expect(b.readUInt16LE(0x12)).toBe(EM_BPF);
    expect(b.readUInt32LE(0x14)).toBe(1);
    expect(b.readUInt32LE(0x30)).toBe(0); // e_flags: SBPFv0
    expect([b.readUInt16LE(0x34), b.readUInt16LE(0x36), b.readUInt16LE(0x3a)]).toEqual([
      64, 56, 64,
    ]);
    expect(out.entry).toBe(out.section('.text').addr + 16);
    expect(out.dynsym()[1]).toEqual({
      name: 'entrypoint',
      info: (STB_GLOBAL << 4) | STT_FUNC,
      shndx: 1,
      value: out.entry,
      size: 32,
    });
  });

  it('has the sections the loader expects, in file order, with addresses equal to offsets', () => {
    const out = link(twoFunctions);
    expect(out.sections.map((s) => s.name)).toEqual(SBF_LOADER_SECTIONS);
    const allocated = out.sections.filter((s) => (s.flags & SHF_ALLOC) !== 0);
    for (const s of allocated) expect(s.addr).toBe(s.offset);
    for (let i = 1; i < out.sections.length; i++) {
      const previous = out.sections[i - 1];
      expect(out.sections[i].offset).toBeGreaterThanOrEqual(previous.offset + previous.size);
    }
    expect(out.section('.text').flags).toBe(SHF_ALLOC | SHF_EXECINSTR);
    expect(out.section('.rodata').flags).toBe(SHF_ALLOC);
    expect(out.section('.dynsym')).toMatchObject({
      type: SHT_DYNSYM,
      entsize: 24,
      info: 1,
      link: 4,
    });
    expect(out.section('.rel.dyn')).toMatchObject({ type: SHT_REL, entsize: 16, link: 3 });
    expect(out.section('.dynamic')).toMatchObject({ type: SHT_DYNAMIC, entsize: 16, link: 4 });
    expect(out.section('.text').offset % 8).toBe(0);
    expect(out.section('.rodata').offset % 8).toBe(0);
  });

  it('has program headers for code (R+X), read-only data with the dynamic tables (R) and PT_DYNAMIC', () => {
    const out = link(twoFunctions);
    const text = out.section('.text');
    const rodata = out.section('.rodata');
    const dynamic = out.section('.dynamic');
    const segment = (offset: number, size: number) => ({
      offset,
      vaddr: offset,
      paddr: offset,
      filesz: size,
      memsz: size,
    });
    expect(out.programHeaders).toEqual([
      { type: PT_LOAD, flags: PF_R | PF_X, ...segment(text.offset, text.size) },
      {
        type: PT_LOAD,
        flags: PF_R,
        ...segment(rodata.offset, dynamic.offset + dynamic.size - rodata.offset),
      },
      { type: PT_DYNAMIC, flags: PF_R, ...segment(dynamic.offset, dynamic.size) },
    ]);
  });

  it('has the dynamic entries the loader reads', () => {
    const out = link(twoFunctions);
    expect(out.dynamic()).toEqual([
      [DT_REL, out.section('.rel.dyn').addr],
      [DT_RELSZ, 32],
      [DT_RELENT, 16],
      [DT_SYMTAB, out.section('.dynsym').addr],
      [DT_SYMENT, 24],
      [DT_STRTAB, out.section('.dynstr').addr],
      [DT_STRSZ, out.section('.dynstr').size],
      [DT_NULL, 0],
    ]);
  });

  it('leaves out .rel.dyn and DT_REL* when nothing needs relocating (the loader rejects DT_RELSZ 0)', () => {
    const out = link({
      sections: [{ name: '.text', data: ebpf.code(ebpf.mov64(0, 0), ebpf.exit()) }],
      symbols: [entrypoint],
    });
    expect(out.sections.map((s) => s.name)).toEqual([
      '',
      '.text',
      '.dynsym',
      '.dynstr',
      '.dynamic',
      '.shstrtab',
    ]);
    expect(out.dynamic().map(([tag]) => tag)).toEqual([
      DT_SYMTAB,
      DT_SYMENT,
      DT_STRTAB,
      DT_STRSZ,
      DT_NULL,
    ]);
  });

  it('is deterministic: the same objects give the same bytes', () => {
    const objects = [
      { name: 'a.o', bytes: buildObject(twoFunctions) },
      {
        name: 'b.o',
        bytes: buildObject({
          sections: [
            { name: '.text', data: ebpf.code(ebpf.call(), ebpf.exit()) },
            { name: '.rodata.str1.1', align: 1, data: Buffer.from('x\0') },
          ],
          symbols: [{ name: 'other', section: '.text', type: 'func' }, { name: 'sol_log_64_' }],
          relocations: [{ section: '.text', offset: 0, type: R_BPF_64_32, symbol: 'sol_log_64_' }],
        }),
      },
    ];
    const first = linkSbf(objects);
    const second = linkSbf(objects.map((o) => ({ ...o, bytes: Uint8Array.from(o.bytes) })));
    expect(second.equals(first)).toBe(true);
  });

  it('does not modify its inputs', () => {
    const bytes = buildObject(twoFunctions);
    const copy = Buffer.from(bytes);
    linkSbf([{ name: 'a.o', bytes }]);
    expect(Buffer.from(bytes).equals(copy)).toBe(true);
  });
});
