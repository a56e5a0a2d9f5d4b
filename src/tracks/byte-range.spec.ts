import { contentRange, parseRange, parseSingleRange, unsatisfiedContentRange } from './byte-range';

const SIZE = 10_000;

describe('parseRange', () => {
  it('gives none without a header', () => {
    expect(parseRange(undefined, SIZE)).toEqual({ kind: 'none' });
  });

  it('parses a-b, a- and -n', () => {
    expect(parseRange('bytes=0-99', SIZE)).toEqual({ kind: 'single', start: 0, end: 99 });
    expect(parseRange('bytes=9000-', SIZE)).toEqual({ kind: 'single', start: 9000, end: 9999 });
    expect(parseRange('bytes=-500', SIZE)).toEqual({ kind: 'single', start: 9500, end: 9999 });
    expect(parseRange('bytes=0-0', SIZE)).toEqual({ kind: 'single', start: 0, end: 0 });
    expect(parseRange('bytes=9999-9999', SIZE)).toEqual({ kind: 'single', start: 9999, end: 9999 });
  });

  it('clamps an end past the object and a suffix longer than it', () => {
    expect(parseRange('bytes=5000-99999', SIZE)).toEqual({
      kind: 'single',
      start: 5000,
      end: 9999,
    });
    expect(parseRange('bytes=-99999', SIZE)).toEqual({ kind: 'single', start: 0, end: 9999 });
  });

  it('treats huge numbers as "past the end", not as garbage or precision loss', () => {
    const huge = '9'.repeat(400);
    expect(parseRange(`bytes=0-${huge}`, SIZE)).toEqual({ kind: 'single', start: 0, end: 9999 });
    expect(parseRange(`bytes=-${huge}`, SIZE)).toEqual({ kind: 'single', start: 0, end: 9999 });
    expect(parseRange(`bytes=${huge}-`, SIZE)).toEqual({ kind: 'unsatisfiable' });
    expect(parseRange('bytes=9007199254740993-', SIZE)).toEqual({ kind: 'unsatisfiable' });
    expect(parseRange(`bytes=${huge}-5`, SIZE)).toEqual({ kind: 'none' }); // last < first
  });

  it('answers unsatisfiable when no range overlaps the object', () => {
    expect(parseRange('bytes=10000-', SIZE)).toEqual({ kind: 'unsatisfiable' });
    expect(parseRange('bytes=10000-20000', SIZE)).toEqual({ kind: 'unsatisfiable' });
    expect(parseRange('bytes=-0', SIZE)).toEqual({ kind: 'unsatisfiable' });
    expect(parseRange('bytes=20000-30000,-0', SIZE)).toEqual({ kind: 'unsatisfiable' });
    expect(unsatisfiedContentRange(SIZE)).toBe('bytes */10000');
  });

  it('drops unsatisfiable members of a list and keeps the rest', () => {
    expect(parseRange('bytes=20000-,0-9', SIZE)).toEqual({ kind: 'single', start: 0, end: 9 });
  });

  it('ignores malformed headers (the whole object is served)', () => {
    for (const header of [
      '',
      'bytes',
      'bytes=',
      'bytes=,',
      'bytes= , ',
      'bytes=-',
      'bytes=--5',
      'bytes=-5-10',
      'bytes=5-3',
      'bytes=a-b',
      'bytes=0x10-20',
      'bytes=1.5-3',
      'bytes=+1-3',
      'bytes=0-1;2-3',
      'bytes =0-1',
      'bytes= 0 - 1',
      'bytes=0-1,5-2',
      'items=0-1',
      '=0-1',
      'bytes:0-1',
      'bytes=0-1\r\nX-Evil: 1',
      'bytes=٣-٤', // non-ASCII digits
    ]) {
      expect([header, parseRange(header, SIZE)]).toEqual([header, { kind: 'none' }]);
    }
  });

  it('accepts the unit in any case, optional whitespace and empty list elements', () => {
    expect(parseRange('Bytes=0-1', SIZE)).toEqual({ kind: 'single', start: 0, end: 1 });
    expect(parseRange('  bytes=0-1  ', SIZE)).toEqual({ kind: 'single', start: 0, end: 1 });
    expect(parseRange('bytes=0-1 ,\t 5-6', SIZE)).toEqual({
      kind: 'multiple',
      ranges: [
        { start: 0, end: 1 },
        { start: 5, end: 6 },
      ],
    });
    expect(parseRange('bytes=,0-1,,', SIZE)).toEqual({ kind: 'single', start: 0, end: 1 });
  });

  it('serves bytes=0-0,-1 as two parts, or one on a 1-byte object', () => {
    expect(parseRange('bytes=0-0,-1', SIZE)).toEqual({
      kind: 'multiple',
      ranges: [
        { start: 0, end: 0 },
        { start: 9999, end: 9999 },
      ],
    });
    expect(parseRange('bytes=0-0,-1', 1)).toEqual({ kind: 'single', start: 0, end: 0 });
  });

  it('coalesces overlapping and adjacent ranges, keeping the order asked for', () => {
    expect(parseRange('bytes=500-600,0-10,550-700,11-20', SIZE)).toEqual({
      kind: 'multiple',
      ranges: [
        { start: 500, end: 700 },
        { start: 0, end: 20 },
      ],
    });
    expect(parseRange('bytes=0-100,50-150,-9950', SIZE)).toEqual({
      kind: 'single',
      start: 0,
      end: 9999,
    });
  });

  it('serves the whole object beyond the range count cap', () => {
    const many = (n: number) =>
      `bytes=${Array.from({ length: n }, (_, i) => `${i * 10}-${i * 10 + 1}`).join(',')}`;
    expect(parseRange(many(16), SIZE).kind).toBe('multiple');
    expect(parseRange(many(17), SIZE)).toEqual({ kind: 'none' });
    expect(parseRange(many(1000), SIZE)).toEqual({ kind: 'none' });
    expect(parseRange(`bytes=${'0-0,'.repeat(20)}`, SIZE)).toEqual({ kind: 'none' });
    expect(parseRange(many(3), SIZE, { maxRanges: 2 })).toEqual({ kind: 'none' });
  });

  it('stays fast on hostile input', () => {
    const started = Date.now();
    for (const header of [
      `bytes=${'0'.repeat(100_000)}-1`,
      `bytes=${','.repeat(100_000)}`,
      `bytes=${' '.repeat(100_000)}0-1`,
      `bytes=${'-'.repeat(100_000)}`,
    ]) {
      expect(parseRange(header, SIZE)).toEqual({ kind: 'none' });
    }
    expect(Date.now() - started).toBeLessThan(1000);
  });

  it('handles an empty object: a non-zero suffix gives the (empty) whole, the rest is unsatisfiable', () => {
    expect(parseRange('bytes=-5', 0)).toEqual({ kind: 'none' });
    expect(parseRange('bytes=0-', 0)).toEqual({ kind: 'unsatisfiable' });
    expect(parseRange('bytes=0-0', 0)).toEqual({ kind: 'unsatisfiable' });
    expect(parseRange('bytes=-0', 0)).toEqual({ kind: 'unsatisfiable' });
  });

  it('can refuse a suffix range of an empty object instead (S3)', () => {
    const s3 = { emptySuffix: 'unsatisfiable' } as const;
    expect(parseRange('bytes=-5', 0, s3)).toEqual({ kind: 'unsatisfiable' });
    expect(parseRange('bytes=0-', 0, s3)).toEqual({ kind: 'unsatisfiable' });
    expect(parseRange('bytes=5-3', 0, s3)).toEqual({ kind: 'none' });
    expect(parseRange('bytes=-5', 10, s3)).toEqual({ kind: 'single', start: 5, end: 9 });
  });

  it('formats Content-Range', () => {
    expect(contentRange({ start: 0, end: 99 }, SIZE)).toBe('bytes 0-99/10000');
  });
});

describe('parseSingleRange', () => {
  it('parses one range as parseRange does', () => {
    expect(parseSingleRange('bytes=0-99', SIZE)).toEqual({ kind: 'single', start: 0, end: 99 });
    expect(parseSingleRange('bytes=-500', SIZE)).toEqual({
      kind: 'single',
      start: 9500,
      end: 9999,
    });
    expect(parseSingleRange('bytes=10000-', SIZE)).toEqual({ kind: 'unsatisfiable' });
    expect(parseSingleRange('bytes=5-3', SIZE)).toEqual({ kind: 'none' });
    expect(parseSingleRange(undefined, SIZE)).toEqual({ kind: 'none' });
  });

  it('ignores a header with several ranges, even ones that would coalesce or not be satisfiable', () => {
    for (const header of ['bytes=0-1,5-6', 'bytes=0-1,2-3', 'bytes=0-1,0-1', 'bytes=20000-,-0']) {
      expect([header, parseSingleRange(header, SIZE)]).toEqual([header, { kind: 'none' }]);
    }
    expect(parseSingleRange('bytes=0-1,', SIZE)).toEqual({ kind: 'single', start: 0, end: 1 });
  });

  it('passes the empty-object choice on', () => {
    expect(parseSingleRange('bytes=-5', 0)).toEqual({ kind: 'none' });
    expect(parseSingleRange('bytes=-5', 0, { emptySuffix: 'unsatisfiable' })).toEqual({
      kind: 'unsatisfiable',
    });
  });
});
