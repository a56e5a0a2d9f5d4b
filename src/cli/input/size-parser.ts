import { CliError } from '../cli-error';

/** Binary units, as the spec reads `100m` (MiB). */
const UNITS: Record<string, number> = {
  '': 1,
  k: 1024,
  m: 1024 ** 2,
  g: 1024 ** 3,
  t: 1024 ** 4,
};

/** Digits, an optional fraction, an optional unit with an optional `b`/`ib` tail: `512k`, `1.5GiB`. */
const SIZE = /^(\d{1,20})(?:\.(\d{1,9}))?([kmgt]?)(?:i?b)?$/i;

export const SIZE_SYNTAX =
  'a number of bytes, or a number with k, m, g or t (KiB, MiB, GiB, TiB): 512k, 100m, 1g';

/**
 * Parses a size such as `512k`, `100m`, `1g`, `1.5g` or `4096` into bytes (fractions round up
 * to a whole byte). Sizes are positive and at most 2^53 - 1 bytes, so they stay exact numbers.
 */
export function parseSize(text: string, what = 'size'): number {
  const trimmed = typeof text === 'string' ? text.trim() : '';
  const match = SIZE.exec(trimmed);
  if (!match) throw new CliError(`bad ${what} '${printable(text)}': expected ${SIZE_SYNTAX}`);
  const [, whole, fraction = '', unit] = match;
  if (unit === '' && fraction !== '') {
    throw new CliError(`bad ${what} '${printable(text)}': a plain byte count is a whole number`);
  }
  const multiplier = BigInt(UNITS[unit.toLowerCase()]);
  // Exact arithmetic in BigInt: 1.1g must not become 1181116006.4000001.
  const scale = 10n ** BigInt(fraction.length);
  const numerator = (BigInt(whole) * scale + BigInt(fraction || '0')) * multiplier;
  const bytes = (numerator + scale - 1n) / scale;
  if (bytes < 1n) throw new CliError(`bad ${what} '${printable(text)}': must be at least 1 byte`);
  if (bytes > BigInt(Number.MAX_SAFE_INTEGER)) {
    throw new CliError(`bad ${what} '${printable(text)}': too large`);
  }
  return Number(bytes);
}

/** Echoes user input safely: control characters escaped, long input cut. */
export function printable(text: unknown): string {
  const s = String(text);
  const escaped = [...s]
    .map((c) => {
      const code = c.charCodeAt(0);
      return code < 0x20 || (code >= 0x7f && code <= 0x9f)
        ? `\\x${code.toString(16).padStart(2, '0')}`
        : c;
    })
    .join('');
  return escaped.length > 64 ? `${escaped.slice(0, 61)}...` : escaped;
}
