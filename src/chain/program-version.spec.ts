import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  compareProgramVersions,
  embeddedProgramVersion,
  formatProgramVersion,
  parseProgramVersion,
  PROGRAM_VERSION_MARKER,
} from './program-version';
import { sbfElfSections } from './sbf-elf';

const tapeElf = readFileSync(join(__dirname, '..', '..', 'program', 'tape.so'));
const source = readFileSync(join(__dirname, '..', '..', 'program', 'src', 'version.c'), 'utf8');

/** The committed ELF with its version marker's text replaced (same length or shorter). */
function withMarker(text: string): Buffer {
  const copy = Buffer.from(tapeElf);
  const at = copy.indexOf(PROGRAM_VERSION_MARKER, 0, 'latin1');
  const end = copy.indexOf(0, at);
  copy.fill(0, at, end);
  copy.write(text, at, 'latin1');
  return copy;
}

describe('embeddedProgramVersion', () => {
  it("reads the committed program's version, the one program/src/version.c declares", () => {
    const declared = /"tape-program-version=([^"]+)"/.exec(source)![1];
    const version = embeddedProgramVersion(tapeElf);
    expect(version).not.toBeNull();
    expect(formatProgramVersion(version!)).toBe(declared);
  });

  it('reads it in .rodata only, and after a program data account pads the ELF with zeros', () => {
    const rodata = sbfElfSections(tapeElf)!.find((s) => s.name === '.rodata')!;
    const at = tapeElf.indexOf(PROGRAM_VERSION_MARKER, 0, 'latin1');
    expect(at).toBeGreaterThanOrEqual(rodata.offset);
    expect(at).toBeLessThan(rodata.offset + rodata.size);
    const padded = Buffer.concat([tapeElf, Buffer.alloc(1000)]);
    expect(embeddedProgramVersion(padded)).toEqual(embeddedProgramVersion(tapeElf));
  });

  it('is null without a well-formed marker', () => {
    expect(embeddedProgramVersion(withMarker('tape-program-version=1.0'))).toBeNull();
    expect(embeddedProgramVersion(withMarker('tape-program-version=x.y.z'))).toBeNull();
    expect(embeddedProgramVersion(withMarker('no marker here'))).toBeNull();
    expect(embeddedProgramVersion(withMarker('tape-program-version=0.9.1'))).toEqual({
      major: 0,
      minor: 9,
      patch: 1,
    });
    expect(embeddedProgramVersion(Buffer.from('not an ELF'))).toBeNull();
  });
});

describe('compareProgramVersions', () => {
  const v = (text: string) => parseProgramVersion(text)!;
  it('orders by major, then minor, then patch, numerically', () => {
    expect(compareProgramVersions(v('1.0.0'), v('0.9.9'))).toBeGreaterThan(0);
    expect(compareProgramVersions(v('1.2.10'), v('1.2.9'))).toBeGreaterThan(0);
    expect(compareProgramVersions(v('1.10.0'), v('1.9.0'))).toBeGreaterThan(0);
    expect(compareProgramVersions(v('1.2.3'), v('1.2.3'))).toBe(0);
    expect(compareProgramVersions(v('1.2.3'), v('2.0.0'))).toBeLessThan(0);
    expect(parseProgramVersion('1.2.3-beta')).toBeNull();
  });
});
