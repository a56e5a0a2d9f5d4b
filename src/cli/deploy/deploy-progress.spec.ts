import { PlainProgress, progressLine, TerminalProgress } from './deploy-progress';

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
    let now = 0;
    const p = new TerminalProgress(stream, () => now);
    p.startUploads(2, 2048);
    now += 500;
    p.bytesSent(1024);
    p.trackUploaded('a.txt');
    p.step('a note');
    now += 500;
    p.bytesSent(1024);
    p.trackUploaded('b.txt');
    p.endUploads();
    const text = writes.join('');
    const erase = '\x1b[K';
    expect(text).toContain(`\r[${'-'.repeat(24)}]   0%  0/2 files  0 bytes / 2 KiB${erase}`);
    expect(text).toContain(
      `\r[${'#'.repeat(24)}] 100%  2/2 files  2 KiB / 2 KiB  2 KiB/s  ETA 0s${erase}`,
    );
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
  it('redraws at most ten times a second', () => {
    const { writes, stream } = fakeTerminal();
    let now = 0;
    const p = new TerminalProgress(stream, () => now);
    p.startUploads(1000, 1000 * 1024);
    for (let i = 0; i < 1000; i++) {
      now += 5; // 5 s in all
      p.bytesSent(1024);
    }
    const redraws = writes.filter((w) => w.startsWith('\r[')).length;
    expect(redraws).toBeGreaterThanOrEqual(45);
    expect(redraws).toBeLessThanOrEqual(51);
  });

  it('shows when the gateway makes uploads wait, on the bar and (now and then) as a line', () => {
    const { writes, stream } = fakeTerminal();
    let now = 0;
    const p = new TerminalProgress(stream, () => now);
    p.startUploads(3, 3072);
    now += 200;
    p.waiting(429, 4000);
    expect(writes.at(-1)).toContain('gateway busy (429), waiting 4.0s');
    const lines: string[] = [];
    let clock = 0;
    const plain = new PlainProgress(
      (l) => lines.push(l),
      () => clock,
    );
    plain.waiting(429, 4000);
    clock += 1000;
    plain.waiting(429, 3000);
    clock += 5000;
    plain.waiting(503, 12_000);
    expect(lines).toEqual([
      'the gateway is busy (429): waiting 4.0s before asking again',
      'the gateway is busy (503): waiting 12s before asking again',
    ]);
  });
});

describe('progressLine', () => {
  const bar = (n: number) => `[${'#'.repeat(n)}${'-'.repeat(24 - n)}]`;

  it('shows files, bytes, rate and ETA from the average since the start', () => {
    expect(
      progressLine({
        tracks: 300,
        tracksDone: 120,
        bytes: 3 * 1024 * 1024,
        bytesDone: 1024 * 1024,
        elapsedMs: 4000,
      }),
    ).toBe(`${bar(8)}  33%  120/300 files  1 MiB / 3 MiB  256 KiB/s  ETA 8s`);
  });

  it('has no rate or ETA in its first second, and counts files when there are no bytes', () => {
    expect(progressLine({ tracks: 4, tracksDone: 0, bytes: 0, bytesDone: 0, elapsedMs: 500 })).toBe(
      `${bar(0)}   0%  0/4 files  0 bytes / 0 bytes`,
    );
    expect(
      progressLine({ tracks: 4, tracksDone: 2, bytes: 0, bytesDone: 0, elapsedMs: 2000 }),
    ).toBe(`${bar(12)}  50%  2/4 files  0 bytes / 0 bytes  0 bytes/s  ETA 2s`);
    expect(
      progressLine({ tracks: 4, tracksDone: 0, bytes: 10, bytesDone: 0, elapsedMs: 2000 }),
    ).toBe(`${bar(0)}   0%  0/4 files  0 bytes / 10 bytes  0 bytes/s  ETA --`);
  });
});
