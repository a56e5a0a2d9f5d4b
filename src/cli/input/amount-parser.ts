import { STORAGE_TOKEN_DECIMALS } from '../../chain/program-ids';
import { CliError } from '../cli-error';
import { printable } from './size-parser';

/** A positive decimal amount (`10`, `0.5`) in base units with `decimals` places, exactly. */
export function parseAmount(text: string, decimals: number, what: string, max: bigint): bigint {
  const trimmed = typeof text === 'string' ? text.trim() : '';
  const match = /^(\d{1,15})(?:\.(\d+))?$/.exec(trimmed);
  if (!match)
    throw new CliError(`bad ${what} '${printable(text)}': expected a number such as 10 or 0.5`);
  const [, whole, fraction = ''] = match;
  if (fraction.length > decimals) {
    throw new CliError(`bad ${what} '${printable(text)}': at most ${decimals} decimal places`);
  }
  const units =
    BigInt(whole) * 10n ** BigInt(decimals) + BigInt(fraction.padEnd(decimals, '0') || '0');
  if (units < 1n) throw new CliError(`bad ${what} '${printable(text)}': must be more than zero`);
  if (units > max) throw new CliError(`bad ${what} '${printable(text)}': too large`);
  return units;
}

export function parseSol(text: string): number {
  // 1000 SOL at most per request: a faucet, not a mint.
  return Number(parseAmount(text, 9, 'SOL amount', 1000n * 10n ** 9n));
}

export function parseTokens(text: string): bigint {
  return parseAmount(
    text,
    STORAGE_TOKEN_DECIMALS,
    'token amount',
    10n ** 12n * 10n ** BigInt(STORAGE_TOKEN_DECIMALS),
  );
}
