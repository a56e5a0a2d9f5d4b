import { randomBytes } from 'node:crypto';

/** A marker no JSON value of ours contains, so raw u64 digits can be spliced in after stringify. */
const MARK = `u64-${randomBytes(6).toString('hex')}:`;
const MARKED = new RegExp(`"${MARK}(\\d+)"`, 'g');

/**
 * JSON text where bigint values (u64 fields such as `rentEpoch`) are written as exact integer
 * literals, as Solana writes them, instead of being rounded through a double.
 */
export function toJsonText(value: unknown): string {
  let sawBigint = false;
  const text = JSON.stringify(value, (_key, v: unknown) => {
    if (typeof v !== 'bigint') return v;
    sawBigint = true;
    return `${MARK}${v.toString()}`;
  });
  return sawBigint ? text.replace(MARKED, '$1') : text;
}
