import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { sbfElfLength, sbfElfProblem, sbfElfSections } from './sbf-elf';
import { SBF_LOADER_SECTIONS } from './sbf-loader-sections.spec-support';

const tapeElf = readFileSync(join(__dirname, '..', '..', 'program', 'tape.so'));

describe('sbfElfProblem', () => {
  it('accepts the committed tape program', () => {
    expect(sbfElfProblem(tapeElf)).toBeNull();
  });

  it('names what is wrong with anything else', () => {
    expect(sbfElfProblem(Buffer.from('<html>not a program</html>'))).toBe('not an ELF file');
    const header = (patch: (b: Buffer) => void) => {
      const b = Buffer.from(tapeElf.subarray(0, 64));
      patch(b);
      return sbfElfProblem(b);
    };
    expect(header((b) => (b[4] = 1))).toBe('not a 64-bit little-endian ELF');
    expect(header((b) => b.writeUInt16LE(62, 18))).toBe(
      'an ELF for machine 62, not BPF (247) or SBF (263)',
    );
    expect(header((b) => b.writeUInt16LE(263, 18))).toBeNull();
    expect(header((b) => b.writeUInt16LE(1, 16))).toBe(
      'not a shared object (ELF type must be ET_DYN)',
    );
  });
});

describe('sbfElfSections and sbfElfLength', () => {
  it("list the committed program's sections and find its length behind a program data account's zeros", () => {
    expect(sbfElfSections(tapeElf)?.map((s) => s.name)).toEqual(SBF_LOADER_SECTIONS);
    expect(sbfElfLength(tapeElf)).toBe(tapeElf.length);
    const padded = Buffer.concat([tapeElf, Buffer.alloc(tapeElf.length)]);
    expect(sbfElfLength(padded)).toBe(tapeElf.length);
  });

  it('refuse headers that point past the bytes', () => {
    expect(sbfElfLength(tapeElf.subarray(0, tapeElf.length - 1))).toBeNull();
    expect(sbfElfSections(Buffer.from('not an ELF'))).toBeNull();
  });
});
