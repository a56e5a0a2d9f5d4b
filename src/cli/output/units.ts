import { STORAGE_TOKEN_DECIMALS } from '../../chain/program-ids';

const KIB = 1024;
const MIB = 1024 ** 2;
const GIB = 1024 ** 3;
const LAMPORTS_PER_SOL = 1_000_000_000;

/** `1536` -> `1.5 KiB`; exact byte counts are printed beside it where they matter. */
export function formatBytes(bytes: number): string {
  const units = ['bytes', 'KiB', 'MiB', 'GiB', 'TiB', 'PiB'];
  let value = bytes;
  let unit = 0;
  while (Math.abs(value) >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  if (unit === 0) return `${bytes} ${bytes === 1 ? 'byte' : 'bytes'}`;
  const digits = value >= 100 || Number.isInteger(value) ? 0 : 1;
  return `${value.toFixed(digits).replace(/\.0$/, '')} ${units[unit]}`;
}

/**
 * The smallest friendly size argument (for `tape resize --add`) that covers `bytes`: whole KiB
 * under a MiB, whole MiB above (storage is paid per MiB), whole GiB when that is exact.
 */
export function sizeArgumentCovering(bytes: number): string {
  if (bytes <= 0) return '0';
  if (bytes < MIB) return `${Math.ceil(bytes / KIB)}k`;
  const mib = Math.ceil(bytes / MIB);
  if ((mib * MIB) % GIB === 0) return `${(mib * MIB) / GIB}g`;
  return `${mib}m`;
}

/** Exact SOL from lamports, trailing zeros trimmed: `1500000` -> `0.0015`. */
export function formatSol(lamports: number | bigint): string {
  return formatFixed(BigInt(lamports), 9);
}

/** Approximate SOL for estimates: at most 6 significant decimals. */
export function formatSolApprox(lamports: number): string {
  const sol = lamports / LAMPORTS_PER_SOL;
  if (sol === 0) return '0';
  if (sol >= 1) return String(Number(sol.toFixed(4)));
  return String(Number(sol.toPrecision(3)));
}

/** Exact storage tokens (6 decimals) from base units: `2400000n` -> `2.4`. */
export function formatTokens(baseUnits: bigint): string {
  return formatFixed(baseUnits, STORAGE_TOKEN_DECIMALS);
}

function formatFixed(units: bigint, decimals: number): string {
  const negative = units < 0n;
  const abs = negative ? -units : units;
  const scale = 10n ** BigInt(decimals);
  const whole = abs / scale;
  const fraction = (abs % scale).toString().padStart(decimals, '0').replace(/0+$/, '');
  return `${negative ? '-' : ''}${whole}${fraction ? `.${fraction}` : ''}`;
}

/** `5400` -> `1h 30m`; `86400` -> `1d`. */
export function formatDuration(totalSecs: number): string {
  const secs = Math.max(0, Math.round(totalSecs));
  if (secs === 0) return '0s';
  const parts: string[] = [];
  const units: [string, number][] = [
    ['d', 86400],
    ['h', 3600],
    ['m', 60],
    ['s', 1],
  ];
  let rest = secs;
  for (const [unit, size] of units) {
    const n = Math.floor(rest / size);
    if (n > 0) parts.push(`${n}${unit}`);
    rest -= n * size;
  }
  return parts.slice(0, 2).join(' ');
}

/** `in about 3 days` / `about 2 hours ago`, for approximate times. */
export function formatRelative(targetUnix: number, nowUnix: number): string {
  const delta = targetUnix - nowUnix;
  const abs = Math.abs(delta);
  const phrase = abs < 60 ? 'less than a minute' : `about ${roughSpan(abs)}`;
  return delta >= 0 ? `in ${phrase}` : `${phrase} ago`;
}

function roughSpan(secs: number): string {
  const spans: [string, number][] = [
    ['year', 365 * 86400],
    ['month', 30 * 86400],
    ['day', 86400],
    ['hour', 3600],
    ['minute', 60],
  ];
  for (const [name, size] of spans) {
    if (secs >= size) {
      const n = Math.round(secs / size);
      return `${n} ${name}${n === 1 ? '' : 's'}`;
    }
  }
  return `${secs} seconds`;
}

/** `2026-11-23 04:00 UTC` */
export function formatUtc(unixSecs: number): string {
  const iso = new Date(unixSecs * 1000).toISOString();
  return `${iso.slice(0, 10)} ${iso.slice(11, 16)} UTC`;
}

export function isoTime(unixSecs: number): string {
  return new Date(unixSecs * 1000).toISOString().replace(/\.000Z$/, 'Z');
}
