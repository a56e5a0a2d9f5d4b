import { CliError } from '../cli-error';
import { printable } from './size-parser';

const UNIT_SECONDS: Record<string, number> = {
  s: 1,
  m: 60,
  h: 3600,
  d: 86400,
  w: 7 * 86400,
};

/** One or more `<number><unit>` parts: `90m`, `2h`, `30d`, `1d12h`. */
const DURATION = /^(?:\d{1,9}[smhdw])+$/i;
const PART = /(\d{1,9})([smhdw])/gi;

export const DURATION_SYNTAX =
  'a number with s, m, h, d or w: 90m, 2h, 30d (parts may be combined: 1d12h)';

/** Ten years: longer reservations are almost certainly a typo. */
export const MAX_DURATION_SECS = 10 * 366 * 86400;

/** Parses a duration such as `90m`, `2h`, `30d` or `1d12h` into seconds. */
export function parseDuration(text: string, what = 'duration'): number {
  const trimmed = typeof text === 'string' ? text.trim() : '';
  if (!DURATION.test(trimmed)) {
    const hint = /^\d+$/.test(trimmed) ? ' (a unit is required)' : '';
    throw new CliError(`bad ${what} '${printable(text)}'${hint}: expected ${DURATION_SYNTAX}`);
  }
  let total = 0;
  for (const [, amount, unit] of trimmed.matchAll(PART)) {
    total += Number(amount) * UNIT_SECONDS[unit.toLowerCase()];
  }
  if (total < 1) throw new CliError(`bad ${what} '${printable(text)}': must be longer than zero`);
  if (total > MAX_DURATION_SECS) {
    throw new CliError(`bad ${what} '${printable(text)}': longer than ten years`);
  }
  return total;
}

/** A positive whole number of epochs (the chain stores u64; we keep it a safe integer). */
export function parseEpochs(text: string): number {
  const trimmed = typeof text === 'string' ? text.trim() : '';
  if (!/^\d{1,15}$/.test(trimmed) || Number(trimmed) < 1) {
    throw new CliError(`bad epoch count '${printable(text)}': expected a whole number from 1`);
  }
  return Number(trimmed);
}
