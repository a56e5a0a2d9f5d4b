import { PlainProgress, TerminalProgress } from './deploy-progress';

function fakeTerminal() {
  const writes: string[] = [];
  return {
    writes,
    stream: { write: (s: string) => writes.push(s) > 0 } as unknown as NodeJS.WriteStream,
  };
}

describe('deploy progress', () => {
  it('redraws one bar line on a terminal and leaves a summary line when done', () => {
    const { writes, stream } = fakeTerminal();
    const p = new TerminalProgress(stream);
    p.startUploads(2, 2048);
    p.bytesSent(1024);
    p.trackUploaded('a.txt');
    p.step('a note');
    p.bytesSent(1024);
    p.trackUploaded('b.txt');
    p.endUploads();
    const text = writes.join('');
    const erase = '\x1b[K';
    expect(text).toContain(`\r[${'-'.repeat(24)}]   0%  0/2 files  0 bytes / 2 KiB${erase}`);
    expect(text).toContain(`\r[${'#'.repeat(24)}] 100%  2/2 files  2 KiB / 2 KiB${erase}`);
    // A note clears the bar, prints on its own line, and the bar comes back.
    expect(text).toContain('\r\x1b[Ka note\n\r[');
    expect(text.endsWith('\r\x1b[Kuploaded 2 files (2 KiB)\n')).toBe(true);
    expect(text).not.toContain('a.txt');
  });

  it('prints plain lines otherwise', () => {
    const lines: string[] = [];
    const p = new PlainProgress((l) => lines.push(l));
    p.step('hashed 2 files (2 KiB)');
    p.startUploads(2, 2048);
    p.bytesSent(1024);
    p.trackUploaded('a.txt');
    p.trackUploaded('dir/b c.txt');
    p.endUploads();
    expect(lines).toEqual([
      'hashed 2 files (2 KiB)',
      'uploading 2 files (2 KiB)',
      'uploaded a.txt',
      'uploaded dir/b c.txt',
    ]);
  });
});
