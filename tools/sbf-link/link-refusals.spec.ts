import {
  ELFCLASS32,
  ELFDATA2MSB,
  ET_DYN,
  R_BPF_64_32,
  R_BPF_64_64,
  R_BPF_64_ABS32,
  R_BPF_64_ABS64,
  SHF_ALLOC,
  SHF_WRITE,
  SHT_NOBITS,
  SHT_RELA,
} from './elf-constants';
import { LinkError, linkSbf } from './link';
import { buildObject, ebpf, type ObjectSpec, type SymbolSpec } from './object-builder.spec-support';

const entrypoint: SymbolSpec = { name: 'entrypoint', section: '.text', type: 'func' };
const minimalText = { name: '.text', data: ebpf.code(ebpf.mov64(0, 0), ebpf.exit()) };

function linkError(...specs: ObjectSpec[]): LinkError {
  try {
    linkSbf(specs.map((spec, i) => ({ name: `obj${i}.o`, bytes: buildObject(spec) })));
  } catch (error) {
    if (error instanceof LinkError) return error;
    throw error;
  }
  throw new Error('linked, but a LinkError was expected');
}

describe('linkSbf refuses', () => {
  it('writable .data', () => {
    const error = linkError({
      sections: [minimalText, { name: '.data', flags: SHF_ALLOC | SHF_WRITE, data: [1, 2, 3, 4] }],
      symbols: [entrypoint],
    });
    expect(error.message).toBe(
      'obj0.o: section .data is writable data (4 bytes); SBF programs cannot have writable ' +
        'globals (.data, .bss): make the data const or keep state in accounts',
    );
  });

  it('.bss', () => {
    const error = linkError({
      sections: [
        minimalText,
        { name: '.bss', type: SHT_NOBITS, flags: SHF_ALLOC | SHF_WRITE, size: 64 },
      ],
      symbols: [entrypoint],
    });
    expect(error.message).toMatch(/^obj0\.o: section \.bss is writable data \(64 bytes\)/);
  });

  it('COMMON symbols', () => {
    const error = linkError({
      sections: [minimalText],
      symbols: [entrypoint, { name: 'counter', section: 'COMMON', size: 8, type: 'object' }],
    });
    expect(error.message).toMatch(/^obj0\.o: symbol counter is a COMMON .*writable/);
  });

  it('other allocatable sections it cannot map', () => {
    const error = linkError({
      sections: [minimalText, { name: '.tbss.x', type: SHT_NOBITS, flags: SHF_ALLOC, size: 8 }],
      symbols: [entrypoint],
    });
    expect(error.message).toMatch(/^obj0\.o: allocatable section \.tbss\.x is uninitialised/);
  });

  it('unsupported relocation types', () => {
    const error = linkError({
      sections: [minimalText],
      symbols: [entrypoint, { name: 'x', section: '.text' }],
      relocations: [{ section: '.text', offset: 0, type: R_BPF_64_ABS32, symbol: 'x' }],
    });
    expect(error.message).toBe(
      'obj0.o: R_BPF_64_ABS32 at .text+0x0 against x: unsupported relocation type',
    );
    const unknown = linkError({
      sections: [minimalText],
      symbols: [entrypoint],
      relocations: [{ section: '.text', offset: 8, type: 99, symbol: '.text' }],
    });
    expect(unknown.message).toBe(
      'obj0.o: relocation type 99 at .text+0x8 against .text: unsupported relocation type',
    );
  });

  it('RELA relocations on code', () => {
    const bytes = Buffer.from(
      buildObject({
        sections: [minimalText],
        symbols: [entrypoint],
        relocations: [{ section: '.text', offset: 0, type: R_BPF_64_64, symbol: '.text' }],
      }),
    );
    // Turn the .rel.text header (section 2) into an SHT_RELA one with 24-byte entries.
    const shoff = Number(bytes.readBigUInt64LE(0x28));
    bytes.writeUInt32LE(SHT_RELA, shoff + 2 * 64 + 4);
    bytes.writeBigUInt64LE(24n, shoff + 2 * 64 + 0x20);
    bytes.writeBigUInt64LE(24n, shoff + 2 * 64 + 0x38);
    expect(() => linkSbf([{ name: 'rela.o', bytes }])).toThrow(
      /^rela\.o: \.rel\.text holds RELA relocations for \.text; only REL/,
    );
  });

  it('an object set without entrypoint', () => {
    const error = linkError({
      sections: [minimalText],
      symbols: [{ name: 'main', section: '.text', type: 'func' }],
    });
    expect(error.message).toBe('no object defines the global symbol entrypoint');
  });

  it('an entrypoint that is data', () => {
    const error = linkError({
      sections: [minimalText, { name: '.rodata', data: Buffer.alloc(8) }],
      symbols: [{ name: 'entrypoint', section: '.rodata', type: 'object' }],
    });
    expect(error.message).toBe('entrypoint must be a function in code, not data in .rodata');
  });

  it('duplicate global definitions', () => {
    const helper: ObjectSpec = {
      sections: [minimalText],
      symbols: [{ name: 'helper', section: '.text', type: 'func' }],
    };
    const error = linkError({ sections: [minimalText], symbols: [entrypoint] }, helper, helper);
    expect(error.message).toBe('duplicate definition of global symbol helper in obj1.o and obj2.o');
  });

  it('R_BPF_64_64 on an instruction that is not lddw', () => {
    const error = linkError({
      sections: [minimalText, { name: '.rodata', data: Buffer.alloc(8) }],
      symbols: [entrypoint],
      relocations: [{ section: '.text', offset: 0, type: R_BPF_64_64, symbol: '.rodata' }],
    });
    expect(error.message).toBe(
      'obj0.o: R_BPF_64_64 at .text+0x0 against .rodata: expected lddw (opcode 0x18), ' +
        'found opcode 0xb7',
    );
  });

  it('R_BPF_64_64 in data and R_BPF_64_ABS64 in code', () => {
    const inData = linkError({
      sections: [minimalText, { name: '.rodata', data: Buffer.alloc(16) }],
      symbols: [entrypoint],
      relocations: [{ section: '.rodata', offset: 0, type: R_BPF_64_64, symbol: '.rodata' }],
    });
    expect(inData.message).toBe(
      'obj0.o: R_BPF_64_64 at .rodata+0x0 against .rodata: only supported in code (on lddw)',
    );
    const inCode = linkError({
      sections: [minimalText],
      symbols: [entrypoint],
      relocations: [{ section: '.text', offset: 0, type: R_BPF_64_ABS64, symbol: '.text' }],
    });
    expect(inCode.message).toMatch(
      /R_BPF_64_ABS64 at \.text\+0x0 .*only supported in read-only data/,
    );
  });

  it('relocations against undefined symbols other than calls', () => {
    const error = linkError({
      sections: [{ name: '.text', data: ebpf.code(ebpf.lddw(1), ebpf.exit()) }],
      symbols: [entrypoint, { name: 'table' }],
      relocations: [{ section: '.text', offset: 0, type: R_BPF_64_64, symbol: 'table' }],
    });
    expect(error.message).toBe(
      'obj0.o: R_BPF_64_64 at .text+0x0 against table: the symbol is not defined in any object ' +
        '(only calls may name undefined symbols: those are syscalls)',
    );
  });

  it('calls to undefined functions that are not syscalls (a missing object)', () => {
    const error = linkError({
      sections: [{ name: '.text', data: ebpf.code(ebpf.call(), ebpf.exit()) }],
      symbols: [entrypoint, { name: 'helper' }],
      relocations: [{ section: '.text', offset: 0, type: R_BPF_64_32, symbol: 'helper' }],
    });
    expect(error.message).toMatch(
      /^obj0\.o: R_BPF_64_32 at \.text\+0x0 against helper: .*not a syscall name .*missing/,
    );
  });

  it('R_BPF_64_32 on something other than a call, and calls to data', () => {
    const notCall = linkError({
      sections: [minimalText],
      symbols: [entrypoint, { name: 'sol_log_' }],
      relocations: [{ section: '.text', offset: 0, type: R_BPF_64_32, symbol: 'sol_log_' }],
    });
    expect(notCall.message).toMatch(/expected call \(opcode 0x85\), found opcode 0xb7$/);
    const toData = linkError({
      sections: [
        { name: '.text', data: ebpf.code(ebpf.call(), ebpf.exit()) },
        { name: '.rodata', data: Buffer.alloc(8) },
      ],
      symbols: [entrypoint, { name: 'blob', section: '.rodata', type: 'object' }],
      relocations: [{ section: '.text', offset: 0, type: R_BPF_64_32, symbol: 'blob' }],
    });
    expect(toData.message).toMatch(/against blob: the call target is a data object, not code$/);
  });

  it('relocations outside their section', () => {
    const error = linkError({
      sections: [minimalText],
      symbols: [entrypoint],
      relocations: [{ section: '.text', offset: 64, type: R_BPF_64_64, symbol: '.text' }],
    });
    expect(error.message).toBe(
      'obj0.o: R_BPF_64_64 at .text+0x40 lies outside the section (16 bytes)',
    );
  });

  it('objects for another machine', () => {
    const error = linkError({
      sections: [minimalText],
      symbols: [entrypoint],
      header: { machine: 62 },
    });
    expect(error.message).toBe(
      'obj0.o: has e_machine 62, not EM_BPF (247); compile with clang -target bpf',
    );
  });

  it('ELF32, big-endian and non-relocatable inputs, and non-ELF files', () => {
    const base: ObjectSpec = { sections: [minimalText], symbols: [entrypoint] };
    expect(linkError({ ...base, header: { elfClass: ELFCLASS32 } }).message).toBe(
      'obj0.o: is ELF32; only ELF64 eBPF objects can be linked',
    );
    expect(linkError({ ...base, header: { data: ELFDATA2MSB } }).message).toMatch(
      /^obj0\.o: is big-endian/,
    );
    expect(linkError({ ...base, header: { type: ET_DYN } }).message).toMatch(
      /^obj0\.o: is not a relocatable object \(e_type 3, expected ET_REL 1\)/,
    );
    expect(() => linkSbf([{ name: 'notes.txt', bytes: Buffer.from('hello, world') }])).toThrow(
      'notes.txt: is too short to be an ELF file',
    );
    expect(() => linkSbf([{ name: 'x.o', bytes: Buffer.alloc(64) }])).toThrow(
      'x.o: is not an ELF file (bad magic)',
    );
  });

  it('truncated objects', () => {
    const bytes = buildObject({ sections: [minimalText], symbols: [entrypoint] });
    expect(() => linkSbf([{ name: 'cut.o', bytes: bytes.subarray(0, bytes.length - 10) }])).toThrow(
      /^cut\.o: the section header table .* lies outside the file$/,
    );
  });

  it('an empty list of objects', () => {
    expect(() => linkSbf([])).toThrow(new LinkError('no input objects'));
  });
});
