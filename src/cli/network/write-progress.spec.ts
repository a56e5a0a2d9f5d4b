import { PlainWriteProgress, TerminalWriteProgress } from './write-progress';

describe('deploy write progress', () => {
  it('plain: a start line, a line per tenth, the last chunk', () => {
    const lines: string[] = [];
    const p = new PlainWriteProgress((l) => lines.push(l));
    p.step('creating buffer X');
    p.startWrites(20, 0);
    for (let i = 0; i < 20; i++) p.chunkWritten();
    p.endWrites();
    expect(lines[0]).toBe('creating buffer X');
    expect(lines[1]).toBe('writing 20 chunks');
    expect(lines.slice(2)).toEqual(
      Array.from({ length: 10 }, (_, i) => `written ${2 * (i + 1)}/20 chunks`),
    );
  });

  it('plain: says how much a resumed deploy found in its buffer', () => {
    const lines: string[] = [];
    const p = new PlainWriteProgress((l) => lines.push(l));
    p.startWrites(50, 30);
    p.chunkWritten();
    expect(lines).toEqual(['resuming: 30 of 50 chunks already in the buffer, writing 20']);
  });

  it('terminal: redraws one line and leaves a summary', () => {
    let out = '';
    const stream = { write: (s: string) => ((out += s), true) } as unknown as NodeJS.WriteStream;
    const p = new TerminalWriteProgress(stream);
    p.startWrites(4, 2);
    p.chunkWritten();
    p.chunkWritten();
    p.endWrites();
    expect(out).toContain('resuming: 2 of 4 chunks already in the buffer\n');
    expect(out).toContain('\r[#######################-------]  75%  3/4 chunks');
    expect(out.endsWith('\r\x1b[Kwritten 4/4 chunks\n')).toBe(true);
  });
});
