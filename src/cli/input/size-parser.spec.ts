import { CliError } from '../cli-error';
import { parseSize, printable } from './size-parser';

describe('parseSize', () => {
  it.each([
    ['512k', 512 * 1024],
    ['100m', 100 * 1024 * 1024],
    ['1g', 1024 ** 3],
    ['2t', 2 * 1024 ** 4],
    ['4096', 4096],
    ['1', 1],
    ['100M', 100 * 1024 * 1024],
    ['100MiB', 100 * 1024 * 1024],
    ['64kb', 64 * 1024],
    [' 10m ', 10 * 1024 * 1024],
    ['1.5g', 1.5 * 1024 ** 3],
    // 1.1 GiB is 1181116006.4 bytes: rounded up to a whole byte, computed exactly.
    ['1.1g', 1181116007],
    ['0.5k', 512],
  ])('reads %j as %d bytes', (text, bytes) => {
    expect(parseSize(text)).toBe(bytes);
  });

  it.each([
    '',
    ' ',
    'm',
    '-1',
    '-1m',
    '0',
    '0k',
    '0.0m',
    '1.5',
    '10x',
    '1e9',
    '0x10',
    '1 0m',
    '1,5m',
    '10mm',
    'Infinity',
    'NaN',
    '１００m',
    '100m; rm -rf /',
    '9'.repeat(21),
    '99999999999g',
    '8192t',
  ])('rejects %j with a CliError naming the input', (text) => {
    expect(() => parseSize(text, 'capacity')).toThrow(CliError);
    expect(() => parseSize(text, 'capacity')).toThrow(/^bad capacity '/);
  });

  it('accepts the largest safe byte count and nothing above it', () => {
    expect(parseSize(String(Number.MAX_SAFE_INTEGER))).toBe(Number.MAX_SAFE_INTEGER);
    expect(() => parseSize(String(Number.MAX_SAFE_INTEGER + 1))).toThrow(/too large/);
  });

  it('does not echo control characters or unbounded input back', () => {
    expect(printable('a\u001b[2Jb')).toBe('a\\x1b[2Jb');
    expect(printable('x'.repeat(500))).toHaveLength(64);
    let message = '';
    try {
      parseSize('\u0007'.repeat(1000));
    } catch (err) {
      message = (err as Error).message;
    }
    expect(message.includes('\u0007')).toBe(false);
    expect(message.length).toBeLessThan(250);
  });
});
