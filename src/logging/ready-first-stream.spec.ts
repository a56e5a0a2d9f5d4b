import { ReadyFirstStream } from './ready-first-stream';

const line = (level: number, msg: string) => `{"level":${level},"msg":"${msg}"}\n`;

describe('ReadyFirstStream', () => {
  it('holds info lines until the ready line, which comes first; warnings pass at once', () => {
    const out: string[] = [];
    const stream = new ReadyFirstStream({ write: (l) => out.push(l) }, 0);
    stream.write(line(30, 'module a'));
    stream.write(line(40, 'low ulimit'));
    stream.write(line(30, 'listening'));
    expect(out).toEqual([line(40, 'low ulimit')]);
    stream.expectReady();
    stream.write(line(30, 'ready'));
    expect(out).toEqual([
      line(40, 'low ulimit'),
      line(30, 'ready'),
      line(30, 'module a'),
      line(30, 'listening'),
    ]);
    expect(stream.holding).toBe(false);
    stream.write(line(30, 'later'));
    expect(out.at(-1)).toBe(line(30, 'later'));
  });

  it('release without a ready line (a failed start) writes what was held, in order', () => {
    const out: string[] = [];
    const stream = new ReadyFirstStream({ write: (l) => out.push(l) }, 0);
    stream.write(line(30, 'a'));
    stream.write(line(20, 'b'));
    stream.release();
    expect(out).toEqual([line(30, 'a'), line(20, 'b')]);
  });

  it('lets go by itself when start-up takes longer than the hold', () => {
    jest.useFakeTimers();
    try {
      const out: string[] = [];
      const stream = new ReadyFirstStream({ write: (l) => out.push(l) }, 1000);
      stream.write(line(30, 'a'));
      jest.advanceTimersByTime(999);
      expect(out).toEqual([]);
      jest.advanceTimersByTime(1);
      expect(out).toEqual([line(30, 'a')]);
      stream.write(line(30, 'b'));
      expect(out).toEqual([line(30, 'a'), line(30, 'b')]);
    } finally {
      jest.useRealTimers();
    }
  });

  it('a line that is not pino JSON is never held', () => {
    const out: string[] = [];
    const stream = new ReadyFirstStream({ write: (l) => out.push(l) }, 0);
    stream.write('plain\n');
    expect(out).toEqual(['plain\n']);
  });
});
