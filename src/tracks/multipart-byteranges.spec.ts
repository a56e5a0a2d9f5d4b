import { randomBytes } from 'node:crypto';
import { Readable } from 'node:stream';
import { drain } from '../../test/support/fixtures/tracks';
import { multipartByteranges } from './multipart-byteranges';

const source = randomBytes(10_000);
const openPart = (start: number, end: number) =>
  Readable.from([source.subarray(start, end + 1)], { objectMode: false });

/** An independent reading of the wire format: split on the boundary, check each part. */
function parseParts(body: Buffer, boundary: string) {
  const text = body.toString('latin1');
  expect(text.endsWith(`\r\n--${boundary}--\r\n`)).toBe(true);
  const pieces = text.slice(0, -`\r\n--${boundary}--\r\n`.length).split(`--${boundary}\r\n`);
  expect(pieces[0]).toBe('');
  return pieces.slice(1).map((piece, i, all) => {
    const [head, ...rest] = piece.split('\r\n\r\n');
    let bytes = rest.join('\r\n\r\n');
    if (i < all.length - 1) {
      expect(bytes.endsWith('\r\n')).toBe(true);
      bytes = bytes.slice(0, -2);
    }
    return { head: head.split('\r\n'), bytes: Buffer.from(bytes, 'latin1') };
  });
}

describe('multipartByteranges', () => {
  it('writes each part with its headers and bytes, and exactly the announced length', async () => {
    const ranges = [
      { start: 0, end: 0 },
      { start: 500, end: 1499 },
      { start: 9999, end: 9999 },
    ];
    const body = multipartByteranges(ranges, source.length, 'text/html; charset=utf-8');
    expect(body.contentType).toBe(`multipart/byteranges; boundary=${body.boundary}`);
    const { bytes, error } = await drain(body.body(openPart));
    expect(error).toBeUndefined();
    expect(bytes.length).toBe(body.contentLength);
    const parts = parseParts(bytes, body.boundary);
    expect(parts).toHaveLength(3);
    for (const [i, part] of parts.entries()) {
      const { start, end } = ranges[i];
      expect(part.head).toEqual([
        'Content-Type: text/html; charset=utf-8',
        `Content-Range: bytes ${start}-${end}/10000`,
      ]);
      expect(part.bytes.equals(source.subarray(start, end + 1))).toBe(true);
    }
  });

  it('computes the length for many large parts without reading them', () => {
    const body = multipartByteranges(
      [
        { start: 0, end: 2 ** 40 - 1 },
        { start: 2 ** 41, end: 2 ** 41 + 9 },
      ],
      2 ** 42,
      'video/mp4',
      'fixed',
    );
    const header = (i: number, range: string) =>
      `${i ? '\r\n' : ''}--fixed\r\nContent-Type: video/mp4\r\nContent-Range: bytes ${range}/${2 ** 42}\r\n\r\n`;
    const expected =
      header(0, `0-${2 ** 40 - 1}`).length +
      2 ** 40 +
      header(1, `${2 ** 41}-${2 ** 41 + 9}`).length +
      10 +
      '\r\n--fixed--\r\n'.length;
    expect(body.contentLength).toBe(expected);
  });

  it('never lets a content type inject header lines', async () => {
    const body = multipartByteranges(
      [{ start: 0, end: 9 }],
      source.length,
      'text/html\r\nX-Evil: 1',
    );
    const { bytes } = await drain(body.body(openPart));
    expect(bytes.toString('latin1')).not.toContain('X-Evil');
    expect(bytes.toString('latin1')).toContain('Content-Type: application/octet-stream\r\n');
    expect(bytes.length).toBe(body.contentLength);
  });

  it('uses a fresh random boundary each time', () => {
    const a = multipartByteranges([{ start: 0, end: 1 }], 10, undefined).boundary;
    const b = multipartByteranges([{ start: 0, end: 1 }], 10, undefined).boundary;
    expect(a).not.toBe(b);
    expect(a).toMatch(/^tape-[0-9a-f]{24}$/);
  });

  it('fails the body when a part source errors or gives the wrong length', async () => {
    const body = multipartByteranges([{ start: 0, end: 99 }], source.length, 'text/plain');
    const failing = body.body(() => {
      const stream = new Readable({ read() {} });
      stream.push(source.subarray(0, 10));
      setImmediate(() => stream.destroy(new Error('integrity')));
      return stream;
    });
    expect((await drain(failing)).error?.message).toBe('integrity');
    const short = body.body((start) => openPart(start, start + 10));
    expect((await drain(short)).error?.message).toMatch(/gave 11 bytes/);
  });

  it('rejects bad ranges and boundaries', () => {
    expect(() => multipartByteranges([], 10, undefined)).toThrow(RangeError);
    expect(() => multipartByteranges([{ start: 5, end: 4 }], 10, undefined)).toThrow(RangeError);
    expect(() => multipartByteranges([{ start: 0, end: 10 }], 10, undefined)).toThrow(RangeError);
    expect(() => multipartByteranges([{ start: 0.5, end: 1 }], 10, undefined)).toThrow(RangeError);
    expect(() => multipartByteranges([{ start: 0, end: 1 }], 10, undefined, 'a b')).toThrow(
      RangeError,
    );
    expect(() =>
      multipartByteranges([{ start: 0, end: 1 }], 10, undefined, 'x'.repeat(71)),
    ).toThrow(RangeError);
  });
});
