import { decimalText } from '../http/decimal-text';

/**
 * RFC 9110 §14 byte ranges for one representation size (docs/tracks.md, "Ranges").
 *
 * - No header, another unit, a malformed header (which RFC 9110 says to ignore), or more range
 *   specs than `maxRanges`: `none`, serve the whole object with 200.
 * - One satisfiable range, or several that coalesce into one: `single`, 206 with Content-Range.
 * - Several: `multiple`, overlapping and adjacent ranges merged, in the order the client asked.
 * - Valid but none satisfiable: `unsatisfiable`, 416 with `Content-Range: bytes *\/size`.
 *
 * The same parser serves S3 GetObject through `parseSingleRange`: one range at most, every range
 * of an empty object unsatisfiable (docs/s3.md, "Ranges").
 */
export interface ByteRange {
  /** First byte, inclusive. */
  start: number;
  /** Last byte, inclusive. */
  end: number;
}

export type RangeResult =
  | { kind: 'none' }
  | ({ kind: 'single' } & ByteRange)
  | { kind: 'multiple'; ranges: ByteRange[] }
  | { kind: 'unsatisfiable' };

export type SingleRangeResult = Exclude<RangeResult, { kind: 'multiple' }>;

export interface RangeOptions {
  /** More range specs than this: the header is ignored. Default DEFAULT_MAX_RANGES. */
  maxRanges?: number;
  /**
   * A non-zero suffix range (`bytes=-n`) of an empty representation: `whole` answers it with the
   * (empty) whole as nginx does, `unsatisfiable` with 416 as Amazon S3 does. Default `whole`.
   */
  emptySuffix?: 'whole' | 'unsatisfiable';
}

export const DEFAULT_MAX_RANGES = 16;
/** Longer than any honest header with DEFAULT_MAX_RANGES ranges; past it we do not parse. */
const MAX_RANGE_HEADER_CHARS = 1024;

type Spec = { kind: 'int'; first: number; last: number } | { kind: 'suffix'; length: number };

const NONE = { kind: 'none' } as const;
const UNSATISFIABLE = { kind: 'unsatisfiable' } as const;
const SPEC = /^(\d*)-(\d*)$/;
const OWS = /^[ \t]+|[ \t]+$/g;

export function parseRange(
  header: string | undefined,
  size: number,
  options: RangeOptions = {},
): RangeResult {
  if (header === undefined || header.length > MAX_RANGE_HEADER_CHARS) return NONE;
  const specs = parseSpecs(header.replace(OWS, ''), options.maxRanges ?? DEFAULT_MAX_RANGES);
  if (!specs) return NONE;
  if (size === 0) {
    // RFC 9110 §14.1.1: only a non-zero suffix is satisfiable on an empty representation, and
    // it selects nothing; like nginx we answer it with the (empty) whole, unless told otherwise.
    const whole =
      options.emptySuffix !== 'unsatisfiable' &&
      specs.some((s) => s.kind === 'suffix' && s.length > 0);
    return whole ? NONE : UNSATISFIABLE;
  }
  const ranges: ByteRange[] = [];
  for (const spec of specs) {
    if (spec.kind === 'suffix') {
      if (spec.length > 0) ranges.push({ start: Math.max(size - spec.length, 0), end: size - 1 });
    } else if (spec.first < size) {
      ranges.push({ start: spec.first, end: Math.min(spec.last, size - 1) });
    }
  }
  if (ranges.length === 0) return UNSATISFIABLE;
  const merged = coalesce(ranges);
  return merged.length === 1
    ? { kind: 'single', ...merged[0] }
    : { kind: 'multiple', ranges: merged };
}

/**
 * One range at most (S3 GetObject): a header with several range specs is ignored (`none`, the
 * whole object), even when they would coalesce into one.
 */
export function parseSingleRange(
  header: string | undefined,
  size: number,
  options: Omit<RangeOptions, 'maxRanges'> = {},
): SingleRangeResult {
  const result = parseRange(header, size, { ...options, maxRanges: 1 });
  // One spec never gives several ranges; the check only narrows the type.
  return result.kind === 'multiple' ? NONE : result;
}

/** `bytes a-b/size` for a 206 response or a multipart part. */
export function contentRange(range: ByteRange, size: number): string {
  return `bytes ${decimalText(range.start)}-${decimalText(range.end)}/${decimalText(size)}`;
}

/** `bytes *\/size` for a 416 response. */
export function unsatisfiedContentRange(size: number): string {
  return `bytes */${decimalText(size)}`;
}

function parseSpecs(value: string, maxRanges: number): Spec[] | undefined {
  const equals = value.indexOf('=');
  if (equals <= 0 || value.slice(0, equals).toLowerCase() !== 'bytes') return undefined;
  const specs: Spec[] = [];
  for (const element of value.slice(equals + 1).split(',')) {
    const text = element.replace(OWS, '');
    if (text === '') continue; // empty list elements are allowed (RFC 9110 §5.6.1)
    const match = SPEC.exec(text);
    if (!match) return undefined;
    const [, first, last] = match;
    if (first === '' && last === '') return undefined;
    if (first === '') {
      specs.push({ kind: 'suffix', length: toNumber(last) });
    } else {
      const spec = {
        kind: 'int' as const,
        first: toNumber(first),
        last: last === '' ? Infinity : toNumber(last),
      };
      if (spec.last < spec.first) return undefined; // an invalid int-range voids the header
      specs.push(spec);
    }
    if (specs.length > maxRanges) return undefined;
  }
  return specs.length > 0 ? specs : undefined;
}

/** Digits to a number; anything past 2^53 is "more than any object" and compares as such. */
function toNumber(digits: string): number {
  if (digits.length > 16) return Infinity;
  const n = Number(digits);
  return n > Number.MAX_SAFE_INTEGER ? Infinity : n;
}

/** Merges overlapping and adjacent ranges; keeps the order in which the client first asked. */
function coalesce(ranges: ByteRange[]): ByteRange[] {
  const sorted = ranges
    .map((range, index) => ({ ...range, index }))
    .sort((a, b) => a.start - b.start || a.index - b.index);
  const merged: Array<ByteRange & { index: number }> = [];
  for (const range of sorted) {
    const last = merged[merged.length - 1];
    if (last && range.start <= last.end + 1) {
      last.end = Math.max(last.end, range.end);
      last.index = Math.min(last.index, range.index);
    } else {
      merged.push({ ...range });
    }
  }
  return merged.sort((a, b) => a.index - b.index).map(({ start, end }) => ({ start, end }));
}
