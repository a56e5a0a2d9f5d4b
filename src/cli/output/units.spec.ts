import {
  formatBytes,
  formatDuration,
  formatRelative,
  formatSol,
  formatSolApprox,
  formatTokens,
  formatUtc,
  sizeArgumentCovering,
} from './units';
import { parseSize } from '../input/size-parser';

describe('units', () => {
  it('formats byte counts in binary units', () => {
    expect(formatBytes(0)).toBe('0 bytes');
    expect(formatBytes(1)).toBe('1 byte');
    expect(formatBytes(1536)).toBe('1.5 KiB');
    expect(formatBytes(100 * 1024 * 1024)).toBe('100 MiB');
    expect(formatBytes(52_428_800 + 1)).toBe('50 MiB');
  });

  it('rounds a missing amount up to a size argument that covers it', () => {
    for (const missing of [
      1,
      700,
      1024,
      1025,
      1048575,
      1048576,
      1048577,
      1_500_000,
      1024 ** 3,
      1024 ** 3 + 1,
    ]) {
      const arg = sizeArgumentCovering(missing);
      expect(parseSize(arg)).toBeGreaterThanOrEqual(missing);
    }
    expect(sizeArgumentCovering(700)).toBe('1k');
    expect(sizeArgumentCovering(1_500_000)).toBe('2m');
    expect(sizeArgumentCovering(1024 ** 3)).toBe('1g');
    expect(sizeArgumentCovering(1024 ** 3 + 1)).toBe('1025m');
  });

  it('prints token and SOL amounts exactly from base units', () => {
    expect(formatTokens(2_400_000n)).toBe('2.4');
    expect(formatTokens(1n)).toBe('0.000001');
    expect(formatTokens(0n)).toBe('0');
    expect(formatTokens(123_456_789_000_001n)).toBe('123456789.000001');
    expect(formatSol(1_500_000)).toBe('0.0015');
    expect(formatSol(10_000_000_000)).toBe('10');
    expect(formatSolApprox(1_684_320)).toBe('0.00168');
  });

  it('formats durations, UTC times and relative times', () => {
    expect(formatDuration(3600)).toBe('1h');
    expect(formatDuration(5400)).toBe('1h 30m');
    expect(formatDuration(86400 * 2 + 60)).toBe('2d 1m');
    expect(formatUtc(Date.UTC(2026, 10, 23, 4, 5) / 1000)).toBe('2026-11-23 04:05 UTC');
    expect(formatRelative(1000 + 86400, 1000)).toBe('in about 1 day');
    expect(formatRelative(1000 + 3 * 3600, 1000)).toBe('in about 3 hours');
    expect(formatRelative(1000 - 7200, 1000)).toBe('about 2 hours ago');
    expect(formatRelative(1030, 1000)).toBe('in less than a minute');
  });
});
