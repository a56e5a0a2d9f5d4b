import { mkdtempSync, readFileSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { main } from './cli';
import { R_BPF_64_32, R_BPF_64_64 } from './elf-constants';
import { linkSbf } from './link';
import { buildObject, ebpf } from './object-builder.spec-support';

describe('sbf-link CLI', () => {
  let dir: string;
  let errors: string[];
  const run = (...args: string[]) => main(args, (line) => errors.push(line));

  const a = buildObject({
    sections: [
      { name: '.text', data: ebpf.code(ebpf.lddw(1), ebpf.call(), ebpf.exit()) },
      { name: '.rodata.str1.1', align: 1, data: Buffer.from('hi\0') },
    ],
    symbols: [{ name: 'entrypoint', section: '.text', type: 'func' }, { name: 'helper' }],
    relocations: [
      { section: '.text', offset: 0, type: R_BPF_64_64, symbol: '.rodata.str1.1' },
      { section: '.text', offset: 16, type: R_BPF_64_32, symbol: 'helper' },
    ],
  });
  const b = buildObject({
    sections: [{ name: '.text', data: ebpf.code(ebpf.exit()) }],
    symbols: [{ name: 'helper', section: '.text', type: 'func' }],
  });

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'sbf-link-cli-'));
    errors = [];
    writeFileSync(join(dir, 'a.o'), a);
    writeFileSync(join(dir, 'b.o'), b);
  });

  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('links the objects into -o', () => {
    const out = join(dir, 'out.so');
    expect(run('-o', out, join(dir, 'a.o'), join(dir, 'b.o'))).toBe(0);
    expect(errors).toEqual([]);
    const expected = linkSbf([
      { name: join(dir, 'a.o'), bytes: a },
      { name: join(dir, 'b.o'), bytes: b },
    ]);
    expect(readFileSync(out).equals(expected)).toBe(true);
  });

  it('prints one sbf-link: line and exits 1 on a link error, writing nothing', () => {
    const out = join(dir, 'out.so');
    expect(run('-o', out, join(dir, 'a.o'))).toBe(1);
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatch(
      /^sbf-link: .*a\.o: R_BPF_64_32 at \.text\+0x10 against helper: .*\n$/,
    );
    expect(existsSync(out)).toBe(false);
  });

  it('explains its usage', () => {
    expect(run(join(dir, 'a.o'))).toBe(1);
    expect(run('-o', join(dir, 'x.so'))).toBe(1);
    expect(run('-x', '-o', join(dir, 'x.so'), join(dir, 'a.o'))).toBe(1);
    expect(run('-o', join(dir, 'x.so'), join(dir, 'missing.o'))).toBe(1);
    expect(errors).toEqual([
      'sbf-link: no output file; usage: sbf-link -o <output.so> <input.o>...\n',
      'sbf-link: no input objects; usage: sbf-link -o <output.so> <input.o>...\n',
      'sbf-link: unknown option -x; usage: sbf-link -o <output.so> <input.o>...\n',
      expect.stringMatching(/^sbf-link: cannot read .*missing\.o: ENOENT/),
    ]);
  });
});
