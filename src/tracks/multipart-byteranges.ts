import { randomBytes } from 'node:crypto';
import { Readable } from 'node:stream';
import { ByteRange, contentRange } from './byte-range';

/**
 * A `multipart/byteranges` body (RFC 9110 §14.6) whose exact length is known before any byte is
 * read, so the response carries Content-Length:
 *
 *   --B CRLF Content-Type: t CRLF Content-Range: bytes a-b/n CRLF CRLF <bytes> CRLF
 *   --B ... CRLF
 *   --B-- CRLF
 */
export interface MultipartByteranges {
  /** The response Content-Type, with the boundary. */
  contentType: string;
  contentLength: number;
  boundary: string;
  /** Streams the parts one after another, opening each part's bytes only when it is reached. */
  body(openPart: (start: number, endInclusive: number) => Readable): Readable;
}

const SAFE_CONTENT_TYPE = /^[\x20-\x7e]{1,255}$/;
/** RFC 2046 allows more, but these need no quoting in the Content-Type parameter. */
const BOUNDARY = /^[0-9A-Za-z_.-]{1,70}$/;

export function newBoundary(): string {
  return `tape-${randomBytes(12).toString('hex')}`;
}

export function multipartByteranges(
  ranges: ByteRange[],
  size: number,
  partContentType: string | undefined,
  boundary: string = newBoundary(),
): MultipartByteranges {
  if (!BOUNDARY.test(boundary)) throw new RangeError('invalid boundary');
  if (ranges.length === 0) throw new RangeError('a multipart body needs at least one range');
  for (const range of ranges) {
    if (!(Number.isSafeInteger(range.start) && Number.isSafeInteger(range.end))) {
      throw new RangeError('range bounds must be integers');
    }
    if (range.start < 0 || range.start > range.end || range.end >= size) {
      throw new RangeError(`range ${range.start}-${range.end} is not inside ${size} bytes`);
    }
  }
  // The type comes from object metadata: never let it inject header lines into a part.
  const type =
    partContentType !== undefined && SAFE_CONTENT_TYPE.test(partContentType)
      ? partContentType
      : 'application/octet-stream';
  const headers = ranges.map((range, i) =>
    Buffer.from(
      `${i === 0 ? '' : '\r\n'}--${boundary}\r\nContent-Type: ${type}\r\n` +
        `Content-Range: ${contentRange(range, size)}\r\n\r\n`,
      'latin1',
    ),
  );
  const trailer = Buffer.from(`\r\n--${boundary}--\r\n`, 'latin1');
  const contentLength =
    headers.reduce((sum, header) => sum + header.length, 0) +
    ranges.reduce((sum, range) => sum + (range.end - range.start + 1), 0) +
    trailer.length;

  return {
    contentType: `multipart/byteranges; boundary=${boundary}`,
    contentLength,
    boundary,
    body: (openPart) =>
      Readable.from(parts(ranges, headers, trailer, openPart), { objectMode: false }),
  };
}

async function* parts(
  ranges: ByteRange[],
  headers: Buffer[],
  trailer: Buffer,
  openPart: (start: number, endInclusive: number) => Readable,
): AsyncGenerator<Buffer> {
  for (const [i, range] of ranges.entries()) {
    yield headers[i];
    let sent = 0;
    for await (const bytes of openPart(range.start, range.end)) {
      sent += (bytes as Buffer).length;
      yield bytes as Buffer;
    }
    // The length was promised up front: a part source that lies would corrupt the framing.
    if (sent !== range.end - range.start + 1) {
      throw new Error(`part ${range.start}-${range.end} gave ${sent} bytes`);
    }
  }
  yield trailer;
}
