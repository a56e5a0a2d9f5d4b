import { CliError } from '../cli-error';
import { MAX_DURATION_SECS, parseDuration, parseEpochs } from './duration-parser';

describe('parseDuration', () => {
  it.each([
    ['90m', 90 * 60],
    ['2h', 7200],
    ['30d', 30 * 86400],
    ['45s', 45],
    ['1w', 7 * 86400],
    ['1d12h', 36 * 3600],
    ['2H', 7200],
    [' 2h ', 7200],
  ])('reads %j as %d seconds', (text, secs) => {
    expect(parseDuration(text)).toBe(secs);
  });

  it('asks for a unit when given a bare number', () => {
    expect(() => parseDuration('3600')).toThrow(/a unit is required/);
  });

  it.each([
    '',
    'h',
    '2',
    '-2h',
    '0h',
    '0m0s',
    '1.5h',
    '2hours',
    '2 h',
    '2y',
    '1e3s',
    'abc',
    'h2',
    '2h;',
    '９０m',
    '9999999999d',
  ])('rejects %j', (text) => {
    expect(() => parseDuration(text)).toThrow(CliError);
    expect(() => parseDuration(text)).toThrow(/^bad duration '/);
  });

  it('refuses reservations over ten years', () => {
    expect(parseDuration('3650d')).toBe(3650 * 86400);
    expect(MAX_DURATION_SECS).toBeGreaterThanOrEqual(3650 * 86400);
    expect(() => parseDuration('4000d')).toThrow(/ten years/);
  });
});

describe('parseEpochs', () => {
  it('reads a positive whole number', () => {
    expect(parseEpochs('24')).toBe(24);
    expect(parseEpochs(' 1 ')).toBe(1);
  });

  it.each(['0', '-1', '1.5', '', 'ten', '1e3', '9'.repeat(16)])('rejects %j', (text) => {
    expect(() => parseEpochs(text)).toThrow(/^bad epoch count/);
  });
});
