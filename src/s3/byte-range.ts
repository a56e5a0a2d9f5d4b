import type { S3ByteRange } from './s3-backend';
import { S3Error } from './s3-error';

/**
 * A `Range: bytes=…` header resolved against the object size. Like S3 (and as RFC 9110
 * allows), a header that is not a single well-formed byte range is ignored and the whole object
 * is sent; a well-formed range that starts past the end is 416 InvalidRange.
 */
export function resolveRange(header: string | undefined, size: number): S3ByteRange | undefined {
  if (header === undefined) return undefined;
  const match = /^bytes=(\d*)-(\d*)$/.exec(header.trim());
  if (!match || (match[1] === '' && match[2] === '')) return undefined;
  const [, first, last] = match;
  if (first === '') {
    const suffix = Number(last);
    if (suffix === 0 || size === 0) throw unsatisfiable(size);
    return { start: Math.max(0, size - suffix), end: size - 1 };
  }
  const start = Number(first);
  const end = last === '' ? size - 1 : Math.min(Number(last), size - 1);
  if (last !== '' && Number(last) < start) return undefined;
  if (start >= size) throw unsatisfiable(size);
  return { start, end };
}

export function unsatisfiable(size: number): S3Error {
  return new S3Error(
    'InvalidRange',
    'the requested range is not satisfiable',
    { ActualObjectSize: String(size) },
    { 'content-range': `bytes */${size}` },
  );
}
